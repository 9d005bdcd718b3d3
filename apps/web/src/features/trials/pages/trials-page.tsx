import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { TrialsTable } from '../components/trials-table';

/** /Trials: the dashboard's trials table as a page of its own. */
export function TrialsPage() {
  return (
    <Stack spacing={3} data-testid="trials-page">
      <Typography variant="h1" component="h1">
        Trials
      </Typography>
      <TrialsTable />
    </Stack>
  );
}
