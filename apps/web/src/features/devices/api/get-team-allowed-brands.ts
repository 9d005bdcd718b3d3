import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { allowedDeviceSchema, type AllowedDevice, type DeviceBrandName } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { useSession } from '@/lib/session';

/** `GET /api/teamAllowedDevices/{teamId}`: the brands the selected team allows. */
export async function getTeamAllowedBrands(teamId: number | string): Promise<AllowedDevice[]> {
  return z
    .array(allowedDeviceSchema)
    .parse(await api.get<unknown>(`/teamAllowedDevices/${teamId}`));
}

/** The current team's allowed brands. */
export function useTeamAllowedBrands() {
  const { user } = useSession();
  const teamId = user?.teamId ?? null;
  return useQuery({
    queryKey: ['device-allowed-brands', teamId] as const,
    queryFn: () => getTeamAllowedBrands(teamId ?? ''),
    enabled: teamId !== null && teamId !== '',
    select: toBrandNames,
  });
}

function toBrandNames(rows: AllowedDevice[]): DeviceBrandName[] {
  return rows.map((row) => row.brand_name);
}
