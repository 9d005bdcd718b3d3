import { useMutation, useQueryClient } from '@tanstack/react-query';
import { teamInputSchema, type TeamInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { adminTeamsQueryKey } from './get-admin-teams';

export { teamInputSchema, type TeamInput };

/** `POST /api/admin/teams` (Sys_Admin): a new team with its brands and devices. */
export function createTeam(input: TeamInput): Promise<{ team_id: number }> {
  return api.post<{ team_id: number }>('/admin/teams', input);
}

export function useCreateTeam() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTeam,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminTeamsQueryKey }),
  });
}
