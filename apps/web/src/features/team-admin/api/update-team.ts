import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TeamInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { adminTeamsQueryKey } from './get-admin-teams';

/** `PUT /api/admin/teams/{teamId}` (Sys_Admin): replaces the whole record. */
export function updateTeam({
  teamId,
  input,
}: {
  teamId: number;
  input: TeamInput;
}): Promise<{ message?: string }> {
  return api.put<{ message?: string }>(`/admin/teams/${teamId}`, input);
}

export function useUpdateTeam() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateTeam,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: adminTeamsQueryKey }),
  });
}
