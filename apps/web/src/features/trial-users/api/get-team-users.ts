import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { teamUserOptionSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type TeamUserOption = z.infer<typeof teamUserOptionSchema>;

export const teamUsersQueryKey = (trialId: number) => ['team-users', trialId] as const;

/** `GET /api/teamUsers/{trialId}`: staff of the team who may be added to the trial. */
export async function getTeamUsers(trialId: number): Promise<TeamUserOption[]> {
  return z.array(teamUserOptionSchema).parse(await api.get<unknown>(`/teamUsers/${trialId}`));
}

export function useTeamUsers(trialId: number) {
  return useQuery({
    queryKey: teamUsersQueryKey(trialId),
    queryFn: () => getTeamUsers(trialId),
    staleTime: 0,
  });
}
