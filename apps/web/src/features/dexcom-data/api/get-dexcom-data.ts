import { useQuery } from '@tanstack/react-query';
import {
  dexcomDataResponseSchema,
  dexcomQueryString,
  type DexcomDataResponse,
  type DexcomRecordType,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { api } from '@/lib/api-client';

export type DexcomRange = { start: Date; end: Date; records?: readonly DexcomRecordType[] };

/** `GET /api/getDexcomParticipantData/{id}/{query}` (query grammar: decision 0055). */
export async function getDexcomData(
  participantId: number,
  range: DexcomRange,
): Promise<DexcomDataResponse> {
  const query = encodeURIComponent(dexcomQueryString(range));
  return dexcomDataResponseSchema.parse(
    await api.get<unknown>(`/getDexcomParticipantData/${participantId}/${query}`),
  );
}

export function useDexcomData(participantId: number, range: DexcomRange) {
  return useQuery({
    queryKey: [
      'dexcom-data',
      participantId,
      range.start.toISOString(),
      range.end.toISOString(),
      range.records ?? null,
    ] as const,
    queryFn: () => getDexcomData(participantId, range),
  });
}
