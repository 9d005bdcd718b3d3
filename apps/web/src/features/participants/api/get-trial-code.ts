import { useQuery } from '@tanstack/react-query';
import { trialCodeResponseSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const trialCodeQueryKey = (trialId: number) => ['trial-code', trialId] as const;

/** An answer without a usable prefix (the call itself succeeded). */
export class MissingTrialCodeError extends Error {
  constructor() {
    super('The answer carries no trial code.');
    this.name = 'MissingTrialCodeError';
  }
}

/** `GET /api/trialParticipants/{trialId}/trialCode`: the prefix of the trial's participant codes. */
export async function getTrialCode(trialId: number): Promise<string> {
  const parsed = trialCodeResponseSchema.safeParse(
    await api.get<unknown>(`/trialParticipants/${trialId}/trialCode`),
  );
  if (!parsed.success || parsed.data.trial_code.trim() === '') throw new MissingTrialCodeError();
  return parsed.data.trial_code;
}

export function useTrialCode(trialId: number) {
  return useQuery({
    queryKey: trialCodeQueryKey(trialId),
    queryFn: () => getTrialCode(trialId),
    staleTime: Infinity,
  });
}
