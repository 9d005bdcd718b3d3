import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { TRIAL_MESSAGES } from '@trialpulse/shared';
import { displayName, useSession } from '@/lib/session';

type DashboardPageProps = {
  /** The team selector (teams feature), composed in by the router. */
  teamSelector: ReactNode;
  /** The trials table (trials feature), composed in by the router. */
  trialsTable: ReactNode;
};

/** The team status that lets a team work with its trials. */
export const ACTIVE_TEAM_STATUS = 'Active';

/**
 * Home page (access spec §2): the team selector; the trials table while the selected team
 * is Active, otherwise the message that its subscription ended. The two parts come from
 * other features, so the route composes them (features never import each other).
 */
export function DashboardPage({ teamSelector, trialsTable }: DashboardPageProps) {
  const { user } = useSession();
  const active = user?.teamStatus === ACTIVE_TEAM_STATUS;
  return (
    <Stack spacing={3} data-testid="dashboard-page">
      <div>
        <Typography variant="h1" component="h1">
          Dashboard
        </Typography>
        {user && (
          <Typography color="text.secondary" sx={{ mt: 0.5 }}>
            Welcome, {displayName(user)}
          </Typography>
        )}
      </div>
      {teamSelector}
      {active ? (
        trialsTable
      ) : (
        <Alert severity="warning" data-testid="team-inactive-message">
          {TRIAL_MESSAGES.teamInactive}
        </Alert>
      )}
    </Stack>
  );
}
