import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { allowedDeviceSchema, type AllowedDevice } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** `GET /api/teamAllowedDevices/{teamId}`: the brands the selected team allows. */
export async function getAllowedDevices(teamId: number | string): Promise<AllowedDevice[]> {
  return z
    .array(allowedDeviceSchema)
    .parse(await api.get<unknown>(`/teamAllowedDevices/${teamId}`));
}

export function useAllowedDevices(teamId: number | string | null | undefined) {
  return useQuery({
    queryKey: ['team-allowed-devices', teamId ?? null] as const,
    queryFn: () => getAllowedDevices(teamId ?? ''),
    enabled: teamId !== null && teamId !== undefined && teamId !== '',
  });
}
