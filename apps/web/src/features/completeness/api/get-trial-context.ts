import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { participantSchema, trialSchema, type Participant, type Trial } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * `GET /api/userTrials` and `GET /api/trialParticipants/{trialId}`: the trial (when the page
 * is opened from a digest link, without navigation state) and its participants as the data
 * pages take them in navigation state.
 */
export function useVisibleTrials(enabled: boolean) {
  return useQuery({
    queryKey: ['trials'],
    queryFn: async (): Promise<Trial[]> =>
      z.array(trialSchema).parse(await api.get<unknown>('/userTrials')),
    enabled,
  });
}

export function useTrialParticipants(trialId: number) {
  return useQuery({
    queryKey: ['participants', trialId],
    queryFn: async (): Promise<Participant[]> =>
      z.array(participantSchema).parse(await api.get<unknown>(`/trialParticipants/${trialId}`)),
  });
}
