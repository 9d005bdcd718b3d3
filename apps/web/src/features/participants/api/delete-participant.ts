import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeleteParticipantInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { participantsQueryKey } from './get-participants';

export type DeleteParticipantRequest = DeleteParticipantInput & { trialId: number };

/**
 * `DELETE /api/participant` {id} (Sys_Admin, Admin, User). The server deletes the
 * participant's device connections and data with them (decision 0016).
 */
export function deleteParticipant({ id }: DeleteParticipantRequest): Promise<{ message?: string }> {
  return api.delete<{ message?: string }>('/participant', { id });
}

export function useDeleteParticipant() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteParticipant,
    onSuccess: (_answer, { trialId }) =>
      queryClient.invalidateQueries({ queryKey: participantsQueryKey(trialId) }),
  });
}
