import { useMutation, useQueryClient } from '@tanstack/react-query';
import { createTrialInputSchema, type CreateTrialInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { trialsQueryKey } from '@/lib/api/trials';

export { createTrialInputSchema, type CreateTrialInput };

/** `POST /api/userTrials`: adds a trial owned by the caller (Sys_Admin, Admin). */
export function createTrial(
  input: CreateTrialInput,
): Promise<{ trialId: number; message?: string }> {
  return api.post<{ trialId: number; message?: string }>('/userTrials', input);
}

export function useCreateTrial() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createTrial,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: trialsQueryKey }),
  });
}
