import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { CanceledMessage } from './canceled-message';

/** A failed authorisation: the message and Cancel, which leaves the canceled message. */
export function AuthorizationFailed({ message }: { message: string }) {
  const [canceled, setCanceled] = useState(false);
  if (canceled) return <CanceledMessage />;
  return (
    <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
      <Alert severity="error" data-testid="authorization-error" sx={{ alignSelf: 'stretch' }}>
        {message}
      </Alert>
      <Button variant="outlined" onClick={() => setCanceled(true)}>
        Cancel
      </Button>
    </Stack>
  );
}
