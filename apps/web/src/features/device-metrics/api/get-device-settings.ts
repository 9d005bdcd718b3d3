import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { deviceMetricSettingSchema, type DeviceMetricSetting } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const deviceSettingsKey = (teamId: number | null, deviceId: number | null) =>
  ['device-metrics', 'settings', teamId, deviceId] as const;

/** `GET /api/deviceSettings/enhanced/deviceSettings/{teamId}/{deviceId}` (Sys_Admin). */
export async function getDeviceSettings(
  teamId: number,
  deviceId: number,
): Promise<DeviceMetricSetting[]> {
  return z
    .array(deviceMetricSettingSchema)
    .parse(await api.get<unknown>(`/deviceSettings/enhanced/deviceSettings/${teamId}/${deviceId}`));
}

export function useDeviceSettings(teamId: number | null, deviceId: number | null) {
  return useQuery({
    queryKey: deviceSettingsKey(teamId, deviceId),
    queryFn: () => getDeviceSettings(teamId!, deviceId!),
    enabled: teamId !== null && deviceId !== null,
  });
}
