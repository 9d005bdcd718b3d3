import { useMutation } from '@tanstack/react-query';
import { selectTeamInputSchema, type TeamOption } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export { selectTeamInputSchema };

/**
 * `POST /api/selectTeam` {teamId, teamName, role}, then a full page reload (access spec §2:
 * "Selecting a team posts the choice then reloads the page"), so every cached answer of
 * the previous team is dropped. The server takes the role from the mapping, not the body.
 */
export async function selectTeam(team: TeamOption): Promise<void> {
  const input = selectTeamInputSchema.parse({
    teamId: team.team_id,
    teamName: team.team_name,
    role: team.role,
  });
  await api.post<{ message?: string }>('/selectTeam', input);
  window.location.reload();
}

export function useSelectTeam() {
  return useMutation({ mutationFn: selectTeam });
}
