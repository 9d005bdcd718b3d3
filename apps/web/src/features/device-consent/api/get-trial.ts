import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { trialSchema, type Trial } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * The trial with `trialId` among `GET /api/userTrials/` (the selected team's trials the
 * caller may see), or `null`: /TrialPage opens the trial row it is handed, as the trials
 * table does.
 */
export async function getTrial(trialId: number): Promise<Trial | null> {
  const trials = z.array(trialSchema).parse(await api.get<unknown>('/userTrials/'));
  return trials.find((trial) => trial.trialId === trialId) ?? null;
}

/** Looks the trial up only when `trialId` is given (a signed-in staff member). */
export function useTrial(trialId: number | null) {
  return useQuery({
    queryKey: ['device-consent', 'trial', trialId],
    queryFn: () => getTrial(trialId ?? 0),
    enabled: trialId !== null,
    retry: false,
  });
}
