import { useQuery } from '@tanstack/react-query';
import { PAGING, pageQueryString, pagedSchema, teamOptionRowSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** `GET /api/sysAdminTeamsData` (Sys_Admin): every team's id and name for the team dropdown. */
export async function getTeams() {
  const body = await api.get<unknown>(
    `/sysAdminTeamsData${pageQueryString({ pageSize: PAGING.maxPageSize, sort: 'team_name' })}`,
  );
  return pagedSchema(teamOptionRowSchema.loose()).parse(body).data;
}

export function useTeams() {
  return useQuery({ queryKey: ['device-metrics', 'teams'], queryFn: getTeams });
}
