import { useQuery } from '@tanstack/react-query';
import { participantConnectionsResponseSchema, type DeviceConnection } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const participantConnectionsQueryKey = (participantId: number) =>
  ['participant-connections', participantId] as const;

/**
 * `GET /api/participantConnections/{participantId}`: one connection per brand the team
 * allows (`not_authorized` for a brand never linked).
 */
export async function getParticipantConnections(
  participantId: number,
): Promise<DeviceConnection[]> {
  const answer = await api.get<unknown>(`/participantConnections/${participantId}`);
  return participantConnectionsResponseSchema.parse(answer).connections;
}

export function useParticipantConnections(participantId: number) {
  return useQuery({
    queryKey: participantConnectionsQueryKey(participantId),
    queryFn: () => getParticipantConnections(participantId),
  });
}
