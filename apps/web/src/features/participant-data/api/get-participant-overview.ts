import { useQuery } from '@tanstack/react-query';
import {
  participantOverviewSchema,
  type ParticipantOverview,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { api } from '@/lib/api-client';

/** `GET /api/participantOverview/{id}`: per allowed brand, the stored metrics. */
export async function getParticipantOverview(participantId: number): Promise<ParticipantOverview> {
  return participantOverviewSchema.parse(
    await api.get<unknown>(`/participantOverview/${participantId}`),
  );
}

export function useParticipantOverview(participantId: number) {
  return useQuery({
    queryKey: ['participant-overview', participantId] as const,
    queryFn: () => getParticipantOverview(participantId),
  });
}
