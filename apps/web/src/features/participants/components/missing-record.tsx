import { Link as RouterLink } from 'react-router';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import { PATHS } from '@trialpulse/shared';

/** What a participant page shows when neither navigation state nor storage names the record. */
export function MissingRecord({ message, testId }: { message: string; testId: string }) {
  return (
    <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, maxWidth: 640, mx: 'auto' }}>
      <Stack spacing={2} sx={{ alignItems: 'flex-start' }} data-testid={testId}>
        <Typography>{message}</Typography>
        <Button
          component={RouterLink}
          to={PATHS.home}
          variant="contained"
          startIcon={<HomeOutlined />}
          data-testid="go-home"
        >
          Go to the dashboard
        </Button>
      </Stack>
    </Paper>
  );
}

export const SELECT_TRIAL_MESSAGE = 'Please select a trial from the dashboard.';
