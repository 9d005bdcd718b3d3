import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { trialUserSchema, type TrialUser } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { TrialUser };

export const trialUsersQueryKey = (trialId: number) => ['trial-users', trialId] as const;

/** `GET /api/trialUsers/{trialId}`: the trial's users, the owner flagged. */
export async function getTrialUsers(trialId: number): Promise<TrialUser[]> {
  return z.array(trialUserSchema).parse(await api.get<unknown>(`/trialUsers/${trialId}`));
}

export function useTrialUsers(trialId: number | undefined) {
  return useQuery({
    queryKey: trialUsersQueryKey(trialId ?? 0),
    queryFn: () => getTrialUsers(trialId ?? 0),
    enabled: trialId !== undefined,
  });
}
