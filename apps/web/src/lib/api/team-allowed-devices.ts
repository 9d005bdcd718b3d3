import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { allowedDeviceSchema, type AllowedDevice, type DeviceBrandName } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { useSession } from '@/lib/session';

/** `GET /api/teamAllowedDevices/{teamId}`: the brands the selected team allows. */
export async function getTeamAllowedDevices(teamId: number | string): Promise<AllowedDevice[]> {
  return z
    .array(allowedDeviceSchema)
    .parse(await api.get<unknown>(`/teamAllowedDevices/${teamId}`));
}

const allowedDevicesKey = (teamId: number | string | null) =>
  ['team-allowed-devices', teamId] as const;

/** The allowed brands of `teamId` as the API answers them. */
export function useTeamAllowedDevices(teamId: number | string | null | undefined) {
  return useQuery({
    queryKey: allowedDevicesKey(teamId ?? null),
    queryFn: () => getTeamAllowedDevices(teamId ?? ''),
    enabled: teamId !== null && teamId !== undefined && teamId !== '',
  });
}

/** The current team's allowed brand names (same cache entry as `useTeamAllowedDevices`). */
export function useTeamAllowedBrands() {
  const { user } = useSession();
  const teamId = user?.teamId ?? null;
  return useQuery({
    queryKey: allowedDevicesKey(teamId),
    queryFn: () => getTeamAllowedDevices(teamId ?? ''),
    enabled: teamId !== null && teamId !== '',
    select: (rows: AllowedDevice[]): DeviceBrandName[] => rows.map((row) => row.brand_name),
  });
}
