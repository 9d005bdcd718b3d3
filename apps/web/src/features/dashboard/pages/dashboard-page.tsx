import Alert from '@mui/material/Alert';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { displayName, useSession } from '@/lib/session';

/** Home page. The team selector and the trials table arrive with the trials issue. */
export function DashboardPage() {
  const { user } = useSession();
  return (
    <Stack spacing={3} data-testid="dashboard-page">
      <div>
        <Typography variant="h1" component="h1">
          Dashboard
        </Typography>
        {user && (
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Welcome, {displayName(user)}
            {user.team_name ? ` — team ${user.team_name}` : ''}
          </Typography>
        )}
      </div>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 4 } }}>
        <Alert severity="info" variant="outlined" data-testid="page-placeholder">
          The team selector and the trials table are coming soon.
        </Alert>
      </Paper>
    </Stack>
  );
}
