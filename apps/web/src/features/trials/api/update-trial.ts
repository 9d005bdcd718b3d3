import { useMutation, useQueryClient } from '@tanstack/react-query';
import { updateTrialInputSchema, type UpdateTrialInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { trialsQueryKey } from '@/lib/api/trials';

export { updateTrialInputSchema, type UpdateTrialInput };

/** `PUT /api/userTrials`: edits number, name and notes (Sys_Admin, Admin, User). */
export function updateTrial(input: UpdateTrialInput): Promise<{ message?: string }> {
  return api.put<{ message?: string }>('/userTrials', input);
}

export function useUpdateTrial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateTrial,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trialsQueryKey }),
  });
}
