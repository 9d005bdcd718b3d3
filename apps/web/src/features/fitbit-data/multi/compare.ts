import { LIMITS } from '@trialpulse/shared';
import { addDays, periodStart } from '@trialpulse/shared/device-data/fitbit-resource-path';

/** The daily series the comparison offers (those the data call answers; decision 0069). */
export const COMPARE_RESOURCES = [
  { value: 'steps', label: 'Steps', unit: 'steps' },
  { value: 'distance', label: 'Distance', unit: 'mi' },
  { value: 'floors', label: 'Floors', unit: 'floors' },
  { value: 'calories', label: 'Calories', unit: 'kcal' },
] as const;
export type CompareResource = (typeof COMPARE_RESOURCES)[number]['value'];

/**
 * Periods of device-data §9 that a daily comparison uses (1d is one number, not a series);
 * custom dates for the 14- and 90-day shortcuts (decision 0190).
 */
export const COMPARE_PERIODS = ['7d', '30d', '1m', '3m', 'customDates'] as const;
export type ComparePeriod = (typeof COMPARE_PERIODS)[number];

/** Messages of the comparison page: the spec's §5 texts where it has one (decision 0069). */
export const COMPARE_MESSAGES = {
  noParticipants: 'Select participants on the trial page first.',
  selectResource: 'Please select a resource',
  selectPeriod: 'Please select a period',
  selectEndDate: 'Please select an end date',
  futureDate: 'End date cannot be in the future.',
  selectStartDate: 'Please select a start date',
  order: 'Start date must be on or before end date.',
  tooLong: 'Date range cannot exceed 1 year.',
  rowCap: `At most ${LIMITS.fitbitRowSelectionCap} rows can be selected.`,
} as const;

export type CompareForm = {
  resource: CompareResource | '';
  period: ComparePeriod | '';
  end: string;
  /** Custom dates only. */
  start?: string;
};

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The first §5 message the form fails, or null (the request is not sent on failure). */
export function compareFormError(form: CompareForm, today: string): string | null {
  if (!form.resource) return COMPARE_MESSAGES.selectResource;
  if (!form.period) return COMPARE_MESSAGES.selectPeriod;
  if (form.period === 'customDates' && !DATE.test(form.start ?? ''))
    return COMPARE_MESSAGES.selectStartDate;
  if (!DATE.test(form.end)) return COMPARE_MESSAGES.selectEndDate;
  if (form.end > today) return COMPARE_MESSAGES.futureDate;
  if (form.period === 'customDates') {
    const start = form.start!;
    if (start > form.end) return COMPARE_MESSAGES.order;
    if (Date.parse(form.end) - Date.parse(start) > 365 * 86_400_000)
      return COMPARE_MESSAGES.tooLong;
  }
  return null;
}

/** A period ending `end` (`date/{end}/{period}`), or custom dates (`date/{start}/{end}`). */
export const seriesPath = (
  resource: CompareResource,
  end: string,
  period: ComparePeriod,
  start = '',
) =>
  period === 'customDates'
    ? `activities/${resource}/date/${start}/${end}.json`
    : `activities/${resource}/date/${end}/${period}.json`;

/** The days a comparison covers, both included (custom dates, or the period ending `end`). */
export function compareRange(form: CompareForm): { start: string; end: string } | null {
  if (!form.period || !DATE.test(form.end)) return null;
  if (form.period === 'customDates')
    return form.start ? { start: form.start, end: form.end } : null;
  return { start: periodStart(form.end, form.period), end: form.end };
}

/**
 * A "last N days" shortcut (decision 0190): the §9 period that is exactly those days (7d,
 * 30d), else custom dates, ending `today`.
 */
export function compareShortcut(form: CompareForm, days: number, today: string): CompareForm {
  const period = `${days}d`;
  if ((COMPARE_PERIODS as readonly string[]).includes(period))
    return { ...form, period: period as ComparePeriod, end: today };
  return { ...form, period: 'customDates', start: addDays(today, 1 - days), end: today };
}

/** A legacy daily series answer as numbers by date; distance km → miles (÷ 1.609, §9). */
export function dailyValues(body: unknown, resource: CompareResource): Map<string, number> {
  const entries = (body as Record<string, unknown> | null)?.[`activities-${resource}`];
  const values = new Map<string, number>();
  if (!Array.isArray(entries)) return values;
  for (const entry of entries as Array<{ dateTime?: unknown; value?: unknown }>) {
    const value = Number(entry.value);
    if (typeof entry.dateTime !== 'string' || !Number.isFinite(value)) continue;
    values.set(
      entry.dateTime,
      resource === 'distance' ? Math.round((value / 1.609) * 100) / 100 : value,
    );
  }
  return values;
}

export type CompareRow = { date: string } & Record<string, number | string | null>;

/** One row per date (newest first), one column per participant (`p{id}`); null = no answer. */
export function compareRows(
  participants: ReadonlyArray<{ id: number }>,
  answers: ReadonlyArray<Map<string, number> | undefined>,
): CompareRow[] {
  const dates = new Set<string>();
  for (const answer of answers) for (const date of answer?.keys() ?? []) dates.add(date);
  return [...dates]
    .sort()
    .reverse()
    .map((date) => {
      const row: CompareRow = { date };
      participants.forEach((participant, index) => {
        row[`p${participant.id}`] = answers[index]?.get(date) ?? null;
      });
      return row;
    });
}

/**
 * Row selection with the Fitbit cap (device-data §5, §9: at most 4): toggling a fifth row
 * is refused and says so.
 */
export function toggleSelection(
  selected: readonly string[],
  date: string,
  cap: number = LIMITS.fitbitRowSelectionCap,
): { selected: string[]; message: string | null } {
  if (selected.includes(date))
    return { selected: selected.filter((d) => d !== date), message: null };
  if (selected.length >= cap) return { selected: [...selected], message: COMPARE_MESSAGES.rowCap };
  return { selected: [...selected, date], message: null };
}
