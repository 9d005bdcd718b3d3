import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import { userMessage } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { useUserTeams } from '../api/get-user-teams';
import { useSelectTeam } from '../api/select-team';

/** The dashboard's team selector: the user's teams, the current one selected. */
export function TeamSelector() {
  const { user } = useSession();
  const teams = useUserTeams(user?.id);
  const select = useSelectTeam();
  const current = user?.teamId === null || user?.teamId === undefined ? '' : String(user.teamId);
  const options = teams.data ?? [];
  const value = options.some((team) => String(team.team_id) === current) ? current : '';

  if (teams.isPending) return <CircularProgress size={24} aria-label="Loading teams" />;
  if (teams.isError) {
    return (
      <Alert severity="error" data-testid="team-selector-error">
        {userMessage(teams.error, 'Error: your teams could not be loaded.')}
      </Alert>
    );
  }

  return (
    <Stack spacing={1} sx={{ maxWidth: 420 }}>
      <FormControl size="small" fullWidth disabled={select.isPending}>
        <InputLabel id="team-selector-label">Team</InputLabel>
        <Select
          labelId="team-selector-label"
          id="team-selector"
          label="Team"
          value={value}
          data-testid="team-selector"
          onChange={(event) => {
            const team = options.find((option) => String(option.team_id) === event.target.value);
            if (team && String(team.team_id) !== current) select.mutate(team);
          }}
        >
          {options.map((team) => (
            <MenuItem
              key={team.team_id}
              value={String(team.team_id)}
              data-testid={`team-option-${team.team_id}`}
            >
              {team.team_name} ({team.role})
            </MenuItem>
          ))}
        </Select>
      </FormControl>
      {select.isError && (
        <Alert severity="error" data-testid="team-select-error">
          {userMessage(select.error, 'Error: the team could not be selected.')}
        </Alert>
      )}
    </Stack>
  );
}
