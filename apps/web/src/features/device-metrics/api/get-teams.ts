import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { teamOptionRowSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** `GET /api/sysAdminTeamsData` (Sys_Admin), the whole list by name: the team dropdown. */
export async function getTeams() {
  const body = await api.get<unknown>('/sysAdminTeamsData', { query: { sortBy: 'team_name' } });
  return z.array(teamOptionRowSchema.loose()).parse(body);
}

export function useTeams() {
  return useQuery({ queryKey: ['device-metrics', 'teams'], queryFn: getTeams });
}
