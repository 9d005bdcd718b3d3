import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { teamOptionSchema, type TeamOption } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { TeamOption };

/** `GET /api/userTeamsData/{userId}`: the caller's teams with the role in each. */
export async function getUserTeams(userId: string | number): Promise<TeamOption[]> {
  const data = await api.get<unknown>(`/userTeamsData/${encodeURIComponent(String(userId))}`);
  return z.array(teamOptionSchema).parse(data);
}

export function useUserTeams(userId: string | number | undefined) {
  return useQuery({
    queryKey: ['user-teams', userId],
    queryFn: () => getUserTeams(userId ?? ''),
    enabled: userId !== undefined,
  });
}
