import Alert from '@mui/material/Alert';
import { PHI_BANNER_MESSAGE } from '@trialpulse/shared';

/** The banner of every participant form (access spec §1). */
export function PhiBanner() {
  return (
    <Alert severity="warning" data-testid="phi-banner">
      {PHI_BANNER_MESSAGE}
    </Alert>
  );
}
