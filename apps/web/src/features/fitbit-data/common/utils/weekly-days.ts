import type { FitbitWeeklySummary } from '@trialpulse/shared';
import { lastDays, shiftDay, type DayRange } from '@/lib/day-range';

/**
 * The days the weekly summary covers (decision 0038): the last 7 days are the UTC date it
 * was computed on and the six before, the previous 7 the week before. A saved summary is
 * not recomputed by reading it, so its days come from when it was computed (`updated_at`),
 * not from today. Null when the answer carries no time.
 */
export function weeklySummaryDays(
  summary: Pick<FitbitWeeklySummary, 'updated_at'>,
): { last: DayRange; previous: DayRange } | null {
  if (!summary.updated_at) return null;
  const computed = new Date(summary.updated_at).toISOString().slice(0, 10);
  const last = lastDays(7, computed);
  return { last, previous: lastDays(7, shiftDay(last.start, -1)) };
}
