import { useMutation } from '@tanstack/react-query';
import { changeCodeResponseSchema, type ChangeCodeInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type ChangeParticipantCodeRequest = ChangeCodeInput & {
  trialId: number;
  participantId: number;
};

/**
 * `PATCH /api/trialParticipants/{trialId}/{participantId}/code` {suffix} → the new code.
 * On 409 the server keeps the old code.
 */
export async function changeParticipantCode({
  trialId,
  participantId,
  suffix,
}: ChangeParticipantCodeRequest): Promise<string> {
  const answer = await api.patch<unknown>(`/trialParticipants/${trialId}/${participantId}/code`, {
    suffix,
  });
  return changeCodeResponseSchema.parse(answer).participant_code;
}

export function useChangeParticipantCode() {
  return useMutation({ mutationFn: changeParticipantCode });
}
