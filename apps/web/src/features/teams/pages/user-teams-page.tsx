import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { userMessage } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { useUserTeams } from '../api/get-user-teams';
import { useSelectTeam } from '../api/select-team';

/** /UserTeams: the user's teams with the role in each; switching works as on the dashboard. */
export function UserTeamsPage() {
  const { user } = useSession();
  const teams = useUserTeams(user?.id);
  const select = useSelectTeam();
  const current = user?.teamId === null || user?.teamId === undefined ? '' : String(user.teamId);

  return (
    <Stack spacing={3} data-testid="user-teams-page">
      <Typography variant="h1" component="h1">
        My teams
      </Typography>
      {select.isError && (
        <Alert severity="error" data-testid="team-select-error">
          {userMessage(select.error, 'Error: the team could not be selected.')}
        </Alert>
      )}
      {teams.isPending ? (
        <CircularProgress aria-label="Loading teams" />
      ) : teams.isError ? (
        <Alert severity="error" data-testid="user-teams-error">
          {userMessage(teams.error, 'Error: your teams could not be loaded.')}
        </Alert>
      ) : (
        <TableContainer component={Paper} variant="outlined">
          <Table data-testid="user-teams-table" aria-label="My teams">
            <TableHead>
              <TableRow>
                <TableCell>Team</TableCell>
                <TableCell>Role</TableCell>
                <TableCell align="right" />
              </TableRow>
            </TableHead>
            <TableBody>
              {teams.data.length === 0 && (
                <TableRow>
                  <TableCell colSpan={3}>You are not a member of any team.</TableCell>
                </TableRow>
              )}
              {teams.data.map((team) => {
                const selected = String(team.team_id) === current;
                return (
                  <TableRow key={team.team_id} data-testid={`user-team-row-${team.team_id}`}>
                    <TableCell>{team.team_name}</TableCell>
                    <TableCell>{team.role}</TableCell>
                    <TableCell align="right">
                      {selected ? (
                        <Chip
                          label="Selected"
                          color="primary"
                          size="small"
                          data-testid="team-selected-chip"
                        />
                      ) : (
                        <Button
                          size="small"
                          variant="outlined"
                          disabled={select.isPending}
                          onClick={() => select.mutate(team)}
                          data-testid={`team-switch-${team.team_id}`}
                        >
                          Switch
                        </Button>
                      )}
                    </TableCell>
                  </TableRow>
                );
              })}
            </TableBody>
          </Table>
        </TableContainer>
      )}
    </Stack>
  );
}
