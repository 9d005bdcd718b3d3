import { useQuery } from '@tanstack/react-query';
import { fitbitWeeklySummarySchema, type FitbitWeeklySummary } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const fitbitWeeklySummaryQueryKey = (participantId: number) =>
  ['fitbit-weekly-summary', participantId] as const;

/**
 * `GET /api/fitbitDataLocalDB/{id}` (device-data §7): the Fitbit weekly summary (§3), the
 * last 7 days against the 7 before, computed by the server from stored readings.
 */
export async function getFitbitWeeklySummary(participantId: number): Promise<FitbitWeeklySummary> {
  return fitbitWeeklySummarySchema.parse(
    await api.get<unknown>(`/fitbitDataLocalDB/${participantId}`),
  );
}

export function useFitbitWeeklySummary(participantId: number) {
  return useQuery({
    queryKey: fitbitWeeklySummaryQueryKey(participantId),
    queryFn: () => getFitbitWeeklySummary(participantId),
  });
}
