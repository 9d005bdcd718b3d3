import Alert from '@mui/material/Alert';
import { DEVICE_MESSAGES } from '@trialpulse/shared';

/** What every consent and callback page shows after Cancel (device-data spec §4, §8). */
export function CanceledMessage() {
  return (
    <Alert severity="info" data-testid="authorization-canceled">
      {DEVICE_MESSAGES.canceled}
    </Alert>
  );
}
