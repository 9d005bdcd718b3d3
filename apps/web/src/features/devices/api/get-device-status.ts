import {
  DEVICE_STATUS_BATCH,
  deviceStatusResponseSchema,
  type DeviceStatusResponse,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * `GET /api/deviceStatus?ids=…` (decision 0041): the device status of up to 50
 * participants (a table page) in one call — per allowed brand the authorisation check and,
 * for Fitbit, the device list the server keeps. Throws `ApiError` for a failed call and
 * `ZodError` for an answer of the wrong shape.
 */
export async function getDeviceStatus(
  participantIds: readonly number[],
  signal?: AbortSignal,
): Promise<DeviceStatusResponse> {
  const answer = await api.get<unknown>(DEVICE_STATUS_BATCH.path, {
    query: { ids: participantIds.join(',') },
    signal,
  });
  return deviceStatusResponseSchema.parse(answer);
}
