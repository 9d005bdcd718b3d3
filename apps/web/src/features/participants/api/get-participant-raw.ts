import { useQuery } from '@tanstack/react-query';
import { participantRawSchema, type ParticipantRaw } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * `GET /api/participant/{id}/raw` (Sys_Admin): the stored record. Columns the schema does
 * not name yet are kept, since this page exists to show what is stored.
 */
export async function getParticipantRaw(participantId: number): Promise<ParticipantRaw> {
  return participantRawSchema
    .loose()
    .parse(await api.get<unknown>(`/participant/${participantId}/raw`));
}

export function useParticipantRaw(participantId: number) {
  return useQuery({
    queryKey: ['participant-raw', participantId] as const,
    queryFn: () => getParticipantRaw(participantId),
    staleTime: 0,
  });
}
