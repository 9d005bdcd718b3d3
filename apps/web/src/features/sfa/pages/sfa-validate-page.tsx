import { useEffect, useRef } from 'react';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { FormCard } from '@/components/ui/form-card';
import { useSession } from '@/lib/session';
import { useIsSfaAlreadyValidated } from '../api/is-sfa-already-validated';
import { SendCodeByEmailButton } from '../components/send-code-by-email-button';
import { ValidateCodeSection } from '../components/validate-code-section';
import { useLeaveWhenAuthorized } from '../hooks/use-sfa-session';

/** /SFAValidatePage: the authenticator code of this sign-in, or a code by email instead. */
export function SfaValidatePage() {
  const authorized = useLeaveWhenAuthorized();
  const validated = useIsSfaAlreadyValidated({ enabled: !authorized });
  const { refresh } = useSession();
  const refreshed = useRef(false);

  // Validated meanwhile in another tab: the client's session is behind, so ask again.
  useEffect(() => {
    if (validated.data !== true || refreshed.current) return;
    refreshed.current = true;
    void refresh();
  }, [validated.data, refresh]);

  return (
    <FormCard
      title="Second factor"
      subtitle="Enter the 6-digit code your authenticator app shows."
      testId="sfa-validate-page"
    >
      <ValidateCodeSection codeLabel="Authenticator code" />
      <Divider />
      <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
        <Typography variant="body2" color="text.secondary">
          No access to your authenticator app?
        </Typography>
        <SendCodeByEmailButton />
      </Stack>
    </FormCard>
  );
}
