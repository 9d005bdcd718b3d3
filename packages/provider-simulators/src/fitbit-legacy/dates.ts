import { addDays, dateOfDayNumber, dayNumberOf, isValidDate } from '../common/civil-time';
import { type FitbitErrorBody, fitbitErrors } from './errors';

/**
 * Fitbit's date grammar: `yyyy-MM-dd` or `today` in the user's time zone, periods
 * (`1d|7d|30d|1w|1m|3m|6m|1y|max`) ending on a date, or `{start}/{end}` ranges with a
 * per-resource maximum.
 */

export type Period = '1d' | '7d' | '30d' | '1w' | '1m' | '3m' | '6m' | '1y' | 'max';
export const ALL_PERIODS: readonly Period[] = [
  '1d',
  '7d',
  '30d',
  '1w',
  '1m',
  '3m',
  '6m',
  '1y',
  'max',
];

export type DateResult = { date: string } | { error: FitbitErrorBody };
export type RangeResult = { start: string; end: string } | { error: FitbitErrorBody };

export function isPeriod(text: string): text is Period {
  return (ALL_PERIODS as readonly string[]).includes(text);
}

/** `today` or a real `yyyy-MM-dd` date. */
export function parseDate(text: string, today: string, field = 'date'): DateResult {
  if (text === 'today') return { date: today };
  if (/^\d{4}-\d{2}-\d{2}$/.test(text) && isValidDate(text)) return { date: text };
  return { error: fitbitErrors.validation(field, `Invalid date:${text}`) };
}

/** The dates covered by a period ending on `end` (calendar months and years, [U] facts). */
export function periodRange(
  end: string,
  period: Period,
  memberSince: string,
): { start: string; end: string } {
  const days: Partial<Record<Period, number>> = { '1d': 1, '7d': 7, '30d': 30, '1w': 7 };
  const fixed = days[period];
  if (fixed !== undefined) return { start: addDays(end, 1 - fixed), end };
  if (period === 'max') return { start: memberSince < end ? memberSince : end, end };
  const months = period === '1m' ? 1 : period === '3m' ? 3 : period === '6m' ? 6 : 12;
  const [y, m, d] = end.split('-').map(Number) as [number, number, number];
  const back = new Date(Date.UTC(y, m - 1 - months, d));
  // Clamp (e.g. 31 March − 1 month → 28/29 February) as calendar arithmetic would.
  if (back.getUTCDate() !== d) back.setUTCDate(0);
  return { start: addDays(back.toISOString().slice(0, 10), 1), end };
}

/**
 * Parses `{date}/{period}` or `{start}/{end}`, checking the allowed periods and the maximum
 * number of days (inclusive).
 */
export function parseRange(
  first: string,
  second: string,
  options: { today: string; memberSince: string; periods: readonly Period[]; maxDays: number },
): RangeResult {
  const from = parseDate(first, options.today, 'date');
  if ('error' in from) return from;
  if (isPeriod(second)) {
    if (!options.periods.includes(second)) {
      return { error: fitbitErrors.validation('period', `Invalid period: ${second}`) };
    }
    return periodRange(from.date, second, options.memberSince);
  }
  if (/^\d+[dwmy]$/.test(second))
    return { error: fitbitErrors.validation('period', `Invalid period: ${second}`) };
  const to = parseDate(second, options.today, 'endDate');
  if ('error' in to) return to;
  const span = dayNumberOf(to.date) - dayNumberOf(from.date) + 1;
  if (span < 1) {
    return {
      error: fitbitErrors.validation(
        'endDate',
        'Invalid date range: the end date must not be before the start date.',
      ),
    };
  }
  if (span > options.maxDays) {
    return {
      error: fitbitErrors.validation(
        'endDate',
        `The time range is limited to ${options.maxDays} days.`,
      ),
    };
  }
  return { start: from.date, end: to.date };
}

/** Every date from start to end inclusive. */
export function datesBetween(start: string, end: string): string[] {
  const out: string[] = [];
  for (let day = dayNumberOf(start); day <= dayNumberOf(end); day++) out.push(dateOfDayNumber(day));
  return out;
}

/** `HH:mm` → minutes after midnight, or undefined. */
export function parseClock(text: string): number | undefined {
  const match = /^(\d{2}):(\d{2})$/.exec(text);
  if (!match) return undefined;
  const [h, m] = [Number(match[1]), Number(match[2])];
  return h < 24 && m < 60 ? h * 60 + m : undefined;
}
