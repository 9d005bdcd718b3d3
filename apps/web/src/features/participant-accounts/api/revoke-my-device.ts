import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tokenActionResponseSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import type { MyDeviceRequest } from './authorize-my-device';
import { myEnrolmentsQueryKey } from './get-my-enrolments';

/**
 * `POST /api/Participants/me/deviceRevoke` {participantId, brand}: the participant
 * withdraws one brand's access. Success is code 200; any other code throws.
 */
export async function revokeMyDevice(input: MyDeviceRequest): Promise<{ message: string }> {
  const answer = tokenActionResponseSchema.parse(
    await api.post<unknown>('/Participants/me/deviceRevoke', input),
  );
  if (answer.code !== 200) throw new Error(answer.message);
  return answer;
}

export function useRevokeMyDevice() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeMyDevice,
    onSettled: () => queryClient.invalidateQueries({ queryKey: myEnrolmentsQueryKey }),
  });
}
