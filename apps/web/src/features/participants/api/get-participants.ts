import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { participantSchema, type Participant } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { Participant };

export const participantsQueryKey = (trialId: number) => ['participants', trialId] as const;

/** `GET /api/trialParticipants/{trialId}`: the trial's participants, hidden fields left out. */
export async function getParticipants(trialId: number): Promise<Participant[]> {
  return z.array(participantSchema).parse(await api.get<unknown>(`/trialParticipants/${trialId}`));
}

export function useParticipants(trialId: number) {
  return useQuery({
    queryKey: participantsQueryKey(trialId),
    queryFn: () => getParticipants(trialId),
  });
}
