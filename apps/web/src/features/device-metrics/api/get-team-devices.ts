import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { sysAdminTeamSupportedDeviceRowSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type TeamDevice = {
  id: number;
  device_name: string;
  global_device_catalog_id: number;
  device_type: string | null;
};

/**
 * A team's active supported devices for the device dropdown: the Database Info list of team
 * supported devices narrowed to the team (`team_id`), since the Sys_Admin works on any team
 * (decision 0030).
 */
export async function getTeamDevices(teamId: number): Promise<TeamDevice[]> {
  const body = await api.get<unknown>('/sysAdminTeamSupportedDevicesData', {
    query: { team_id: teamId, sortBy: 'device_name' },
  });
  return z
    .array(sysAdminTeamSupportedDeviceRowSchema)
    .parse(body)
    .filter((device) => device.is_active)
    .map(({ id, device_name, global_device_catalog_id, device_type }) => ({
      id,
      device_name,
      global_device_catalog_id,
      device_type,
    }));
}

export function useTeamDevices(teamId: number | null) {
  return useQuery({
    queryKey: ['device-metrics', 'devices', teamId],
    queryFn: () => getTeamDevices(teamId!),
    enabled: teamId !== null,
  });
}
