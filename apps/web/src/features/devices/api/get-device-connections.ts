import { useQuery } from '@tanstack/react-query';
import {
  deviceConnectionsResponseSchema,
  type DeviceBrandName,
  type DeviceConnection,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { brandPath } from '../utils/paths';

export const deviceConnectionsQueryKey = (brand: DeviceBrandName) =>
  ['device-connections', brand] as const;

/** `GET /api/deviceConnections/{brand}` (Sys_Admin, Admin): the current team's connections. */
export async function getDeviceConnections(brand: DeviceBrandName): Promise<DeviceConnection[]> {
  const answer = await api.get<unknown>(`/deviceConnections/${brandPath(brand)}`);
  return deviceConnectionsResponseSchema.parse(answer).connections;
}

export function useDeviceConnections(brand: DeviceBrandName) {
  return useQuery({
    queryKey: deviceConnectionsQueryKey(brand),
    queryFn: () => getDeviceConnections(brand),
    staleTime: 0,
  });
}
