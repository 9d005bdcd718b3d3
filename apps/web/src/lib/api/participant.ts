import { useQuery } from '@tanstack/react-query';
import { participantSchema, type Participant } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** One cache entry per participant, shared by the participant page and the consent page. */
export const participantQueryKey = (participantId: number) =>
  ['participant', participantId] as const;

/** `GET /api/participant/{id}`: one participant, hidden fields left out. */
export async function getParticipant(participantId: number): Promise<Participant> {
  return participantSchema.parse(await api.get<unknown>(`/participant/${participantId}`));
}

/** Shows `known` (the row the page was opened with) while the fresh record loads. */
export function useParticipant(participantId: number, known?: Participant | null) {
  return useQuery({
    queryKey: participantQueryKey(participantId),
    queryFn: () => getParticipant(participantId),
    placeholderData: known ?? undefined,
  });
}
