import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  completenessGridSchema,
  type CompletenessGrid,
  type CompletenessRange,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const completenessQueryKey = (trialId: number) => ['completeness', trialId] as const;

/** `GET /api/trials/{trialId}/completeness?days=`: the participant × day grid, worst first. */
export async function getCompletenessGrid(
  trialId: number,
  days: CompletenessRange,
): Promise<CompletenessGrid> {
  return completenessGridSchema.parse(
    await api.get<unknown>(`/trials/${trialId}/completeness`, { query: { days } }),
  );
}

export function useCompletenessGrid(trialId: number, days: CompletenessRange) {
  return useQuery({
    queryKey: [...completenessQueryKey(trialId), 'grid', days],
    queryFn: () => getCompletenessGrid(trialId, days),
    placeholderData: keepPreviousData,
  });
}
