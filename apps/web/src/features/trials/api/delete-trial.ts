import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteTrialInputSchema, type DeleteTrialInput } from '@trialpulse/shared';
import { api, isApiError } from '@/lib/api-client';
import { trialsQueryKey } from '@/lib/api/trials';

export { deleteTrialInputSchema };

/** `cascade` is sent only to confirm deleting a trial that still has participants. */
export type DeleteTrialRequest = Pick<DeleteTrialInput, 'trialId'> & { cascade?: true };

/** `DELETE /api/userTrials` (Sys_Admin, Admin). */
export function deleteTrial(input: DeleteTrialRequest): Promise<{ message?: string }> {
  return api.delete<{ message?: string }>('/userTrials', input);
}

export function useDeleteTrial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteTrial,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trialsQueryKey }),
  });
}

/** The server refused because the trial still has participants (409; cascade to confirm). */
export function isTrialWithParticipants(error: unknown): boolean {
  return isApiError(error) && error.status === 409;
}
