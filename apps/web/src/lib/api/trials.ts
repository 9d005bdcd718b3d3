import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { trialSchema, type Trial } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { Trial };

/** The trials list's cache entry (mutations of trials invalidate it). */
export const trialsQueryKey = ['trials'] as const;

/** `GET /api/userTrials/`: the selected team's trials the caller may see (paged or whole). */
export const userTrialsPath = '/userTrials/';

export async function getTrials(): Promise<Trial[]> {
  return z.array(trialSchema).parse(await api.get<unknown>(userTrialsPath));
}

export function useTrials() {
  return useQuery({ queryKey: trialsQueryKey, queryFn: getTrials });
}

/**
 * The trial with `trialId` among the caller's trials, or `null`; looked up only when
 * `trialId` is given (a signed-in staff member). Shares the list's cache entry.
 */
export function useTrial(trialId: number | null) {
  return useQuery({
    queryKey: trialsQueryKey,
    queryFn: getTrials,
    enabled: trialId !== null,
    retry: false,
    select: (trials: Trial[]) => trials.find((trial) => trial.trialId === trialId) ?? null,
  });
}
