import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api-client';

const teamSchema = z.object({
  team_id: z.coerce.number().int(),
  team_name: z.string().catch(''),
});
export type TeamOption = z.infer<typeof teamSchema>;

/** `GET /api/team`: every team, for the approval form's team select. */
export async function getTeams(): Promise<TeamOption[]> {
  return z.array(teamSchema).parse(await api.get<unknown>('/team'));
}

export function useTeams() {
  return useQuery({ queryKey: ['teams'], queryFn: getTeams });
}
