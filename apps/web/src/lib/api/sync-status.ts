import { useQuery } from '@tanstack/react-query';
import {
  participantSyncStatusResponseSchema,
  trialLastDataResponseSchema,
  type ConnectionSyncStatus,
  type TrialLastData,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** `GET /api/deviceSync/participant/{id}`: sync state and stored readings per connection. */
export async function getParticipantSyncStatus(
  participantId: number,
): Promise<ConnectionSyncStatus[]> {
  const answer = await api.get<unknown>(`/deviceSync/participant/${participantId}`);
  return participantSyncStatusResponseSchema.parse(answer).connections;
}

export function useParticipantSyncStatus(participantId: number) {
  return useQuery({
    queryKey: ['device-sync-status', participantId] as const,
    queryFn: () => getParticipantSyncStatus(participantId),
    // A backfill moves on in the background: keep the figures fresh while the page is open.
    refetchInterval: 30_000,
  });
}

/** `GET /api/deviceSync/trial/{id}/lastData`: the latest stored reading per participant. */
export async function getTrialLastData(trialId: number): Promise<TrialLastData> {
  return trialLastDataResponseSchema.parse(
    await api.get<unknown>(`/deviceSync/trial/${trialId}/lastData`),
  );
}

export function useTrialLastData(trialId: number) {
  return useQuery({
    queryKey: ['device-sync-last-data', trialId] as const,
    queryFn: () => getTrialLastData(trialId),
    staleTime: 60_000,
  });
}
