import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router';
import type { Trial } from '@trialpulse/shared';

/** The data pages' "Return to Main Trial Page" bar with the trial's number and name. */
export function ReturnToTrialBar({ trial }: { trial: Trial }) {
  return (
    <Paper variant="outlined" sx={{ px: 2, py: 1 }} data-testid="return-to-trial-bar">
      <Link component={RouterLink} to="/TrialPage" state={{ trial }}>
        Return to Main Trial Page
      </Link>{' '}
      <Typography component="span" color="text.secondary">
        — {trial.trialNumber} {trial.trialName}
      </Typography>
    </Paper>
  );
}
