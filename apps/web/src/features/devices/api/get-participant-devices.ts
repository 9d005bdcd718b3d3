import { useQuery } from '@tanstack/react-query';
import {
  authorisedEntryOf,
  deviceListResponseSchema,
  type AuthorisedDeviceEntry,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** The brands with a device list (battery, last sync); Omron has none. */
export type DeviceListBrand = 'Fitbit' | 'Dexcom';

export const participantDevicesQueryKey = (brand: DeviceListBrand, participantId: number) =>
  ['participant-devices', brand, participantId] as const;

/**
 * `GET /api/fitbitDevices/{id}` or `GET /api/dexcomDevices/{id}`: the participant's
 * authorised devices; the answer's `type` (device spec §7) becomes the entry's `deviceType`.
 * A provider failure arrives as one entry with `hasError`; a failed
 * call throws `ApiError`, an answer of the wrong shape `ZodError`.
 */
export async function getParticipantDevices(
  brand: DeviceListBrand,
  participantId: number,
  signal?: AbortSignal,
): Promise<AuthorisedDeviceEntry[]> {
  const path = brand === 'Fitbit' ? 'fitbitDevices' : 'dexcomDevices';
  const answer = await api.get<unknown>(`/${path}/${participantId}`, { signal });
  return deviceListResponseSchema.parse(answer).devices.map(authorisedEntryOf);
}

export function useParticipantDevices(
  brand: DeviceListBrand,
  participantId: number,
  enabled: boolean,
) {
  return useQuery({
    queryKey: participantDevicesQueryKey(brand, participantId),
    queryFn: ({ signal }) => getParticipantDevices(brand, participantId, signal),
    enabled,
  });
}
