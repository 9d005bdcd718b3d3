import { useQuery } from '@tanstack/react-query';
import { completenessStripsSchema, type CompletenessStrips } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { completenessQueryKey } from './get-completeness-grid';

/** `GET /api/trials/{trialId}/completeness/strips?participantIds=`: 14-day strips, one call per page of rows. */
export async function getCompletenessStrips(
  trialId: number,
  participantIds: readonly number[],
): Promise<CompletenessStrips> {
  return completenessStripsSchema.parse(
    await api.get<unknown>(`/trials/${trialId}/completeness/strips`, {
      query: { participantIds: participantIds.join(',') },
    }),
  );
}

export function useCompletenessStrips(trialId: number, participantIds: readonly number[]) {
  const ids = [...participantIds].sort((a, b) => a - b);
  return useQuery({
    queryKey: [...completenessQueryKey(trialId), 'strips', ids.join(',')],
    queryFn: () => getCompletenessStrips(trialId, ids),
    enabled: ids.length > 0,
    staleTime: 60_000,
  });
}
