import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { teamRecordSchema, type TeamRecord } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { TeamRecord } from '@trialpulse/shared';

export const adminTeamsQueryKey = ['admin-teams'] as const;

/** `GET /api/admin/teams` (Sys_Admin): every team with its full record. */
export async function getAdminTeams(): Promise<TeamRecord[]> {
  return z.array(teamRecordSchema).parse(await api.get<unknown>('/admin/teams'));
}

export function useAdminTeams() {
  return useQuery({ queryKey: adminTeamsQueryKey, queryFn: getAdminTeams });
}
