import type { FitbitWeeklySummary } from '@trialpulse/shared';
import { lastDays, shiftDay, type DayRange } from '@/lib/day-range';

/**
 * The days the weekly summary covers (decisions 0038, 0180): the participant's last 7
 * complete local days and the 7 before, as the server names them in the answer. An answer
 * without them (an older server) falls back to the UTC date it was computed on and the six
 * before. Null when the answer carries neither.
 */
export function weeklySummaryDays(
  summary: Pick<
    FitbitWeeklySummary,
    'updated_at' | 'last_7days_start' | 'last_7days_end' | 'prev_7days_start' | 'prev_7days_end'
  >,
): { last: DayRange; previous: DayRange } | null {
  if (
    summary.last_7days_start &&
    summary.last_7days_end &&
    summary.prev_7days_start &&
    summary.prev_7days_end
  )
    return {
      last: { start: summary.last_7days_start, end: summary.last_7days_end },
      previous: { start: summary.prev_7days_start, end: summary.prev_7days_end },
    };
  if (!summary.updated_at) return null;
  const computed = new Date(summary.updated_at).toISOString().slice(0, 10);
  const last = lastDays(7, computed);
  return { last, previous: lastDays(7, shiftDay(last.start, -1)) };
}
