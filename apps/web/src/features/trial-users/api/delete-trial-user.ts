import { useMutation, useQueryClient } from '@tanstack/react-query';
import { deleteTrialUserInputSchema, type DeleteTrialUserInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { teamUsersQueryKey } from './get-team-users';
import { trialUsersQueryKey, type TrialUser } from './get-trial-users';

export { deleteTrialUserInputSchema, type DeleteTrialUserInput };

/** `DELETE /api/trialUsers` {userId, userEmail, trialId} (Sys_Admin, Admin; never the owner). */
export function deleteTrialUser(input: DeleteTrialUserInput): Promise<{ message?: string }> {
  return api.delete<{ message?: string }>('/trialUsers', input);
}

/** Removes the user from the local list on success. */
export function useDeleteTrialUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteTrialUser,
    onSuccess: (_answer, { trialId, userId }) => {
      queryClient.setQueryData<TrialUser[]>(trialUsersQueryKey(trialId), (users = []) =>
        users.filter((user) => user.id !== userId),
      );
      void queryClient.invalidateQueries({ queryKey: teamUsersQueryKey(trialId) });
    },
  });
}
