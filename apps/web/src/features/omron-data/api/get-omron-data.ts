import { useQuery } from '@tanstack/react-query';
import {
  omronDataResponseSchema,
  type OmronDataResponse,
  type OmronQuery,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { api } from '@/lib/api-client';

export const omronDataQueryKey = (participantId: number, query: OmronQuery | null) =>
  ['omron-data', participantId, query] as const;

/** `POST /api/getOmronParticipantData/{id}` (a read: the spec makes it a POST). */
export async function getOmronData(
  participantId: number,
  query: OmronQuery,
): Promise<OmronDataResponse> {
  return omronDataResponseSchema.parse(
    await api.post<unknown>(`/getOmronParticipantData/${participantId}`, query),
  );
}

/** The Omron readings of a query; nothing is asked while `query` is null. */
export function useOmronData(participantId: number, query: OmronQuery | null) {
  return useQuery({
    queryKey: omronDataQueryKey(participantId, query),
    queryFn: () => getOmronData(participantId, query!),
    enabled: query !== null,
  });
}
