import { useMutation } from '@tanstack/react-query';
import {
  dexcomQueryString,
  type OmronQuery,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { api } from '@/lib/api-client';

/** Sys_Admin: `POST /api/omronParticipantDataRaw/{id}`, Omron's records fetched now. */
export function useOmronRaw(participantId: number) {
  return useMutation({
    mutationFn: (query: OmronQuery) =>
      api.post<unknown>(`/omronParticipantDataRaw/${participantId}`, query),
  });
}

/** Sys_Admin: `GET /api/dexcomParticipantDataRaw/{id}/{query}`, Dexcom's records fetched now. */
export function useDexcomRaw(participantId: number) {
  return useMutation({
    mutationFn: (range: { start: Date; end: Date }) =>
      api.get<unknown>(
        `/dexcomParticipantDataRaw/${participantId}/${encodeURIComponent(dexcomQueryString(range))}`,
      ),
  });
}
