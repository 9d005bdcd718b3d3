import { useMutation, useQueryClient } from '@tanstack/react-query';
import { completenessThresholdsSchema, type CompletenessThresholds } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { completenessQueryKey } from './get-completeness-grid';

/** `PUT /api/trials/{trialId}/completeness/thresholds` (Sys_Admin, Admin). */
export async function updateThresholds(
  trialId: number,
  input: CompletenessThresholds,
): Promise<CompletenessThresholds> {
  return completenessThresholdsSchema.parse(
    await api.put<unknown>(`/trials/${trialId}/completeness/thresholds`, input),
  );
}

/** Saving recolours the grid and the strips: every completeness query of the trial is refetched. */
export function useUpdateThresholds(trialId: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (input: CompletenessThresholds) => updateThresholds(trialId, input),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: completenessQueryKey(trialId) }),
  });
}
