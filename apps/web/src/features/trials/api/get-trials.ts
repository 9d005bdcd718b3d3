import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { trialSchema, type Trial } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type { Trial };

export const trialsQueryKey = ['trials'] as const;

/** `GET /api/userTrials/`: the selected team's trials the caller may see. */
export async function getTrials(): Promise<Trial[]> {
  return z.array(trialSchema).parse(await api.get<unknown>('/userTrials/'));
}

export function useTrials() {
  return useQuery({ queryKey: trialsQueryKey, queryFn: getTrials });
}
