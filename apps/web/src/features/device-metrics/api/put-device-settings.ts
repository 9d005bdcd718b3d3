import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeviceMetricSetting, DeviceSettingsPut } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { deviceSettingsKey } from './get-device-settings';

/** `PUT /api/deviceSettings/{teamId}/{deviceId}` (Sys_Admin): replaces the whole list. */
export function putDeviceSettings({
  teamId,
  deviceId,
  settings,
}: {
  teamId: number;
  deviceId: number;
  settings: DeviceSettingsPut['settings'];
}) {
  return api.put<{ message: string; settings: DeviceMetricSetting[] }>(
    `/deviceSettings/${teamId}/${deviceId}`,
    { settings },
  );
}

export function usePutDeviceSettings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: putDeviceSettings,
    onSuccess: (_answer, variables) =>
      queryClient.invalidateQueries({
        queryKey: deviceSettingsKey(variables.teamId, variables.deviceId),
      }),
  });
}
