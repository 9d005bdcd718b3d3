import { LIMITS } from '@trialpulse/shared';

/** The daily series the comparison offers (those the data call answers; decision 0069). */
export const COMPARE_RESOURCES = [
  { value: 'steps', label: 'Steps', unit: 'steps' },
  { value: 'distance', label: 'Distance', unit: 'mi' },
  { value: 'floors', label: 'Floors', unit: 'floors' },
  { value: 'calories', label: 'Calories', unit: 'kcal' },
] as const;
export type CompareResource = (typeof COMPARE_RESOURCES)[number]['value'];

/** Periods of device-data §9 that a daily comparison uses (1d is one number, not a series). */
export const COMPARE_PERIODS = ['7d', '30d', '1m', '3m'] as const;
export type ComparePeriod = (typeof COMPARE_PERIODS)[number];

/** Messages of the comparison page: the spec's §5 texts where it has one (decision 0069). */
export const COMPARE_MESSAGES = {
  noParticipants: 'Select participants on the trial page first.',
  selectResource: 'Please select a resource',
  selectPeriod: 'Please select a period',
  selectEndDate: 'Please select an end date',
  futureDate: 'End date cannot be in the future.',
  rowCap: `At most ${LIMITS.fitbitRowSelectionCap} rows can be selected.`,
} as const;

export type CompareForm = {
  resource: CompareResource | '';
  period: ComparePeriod | '';
  end: string;
};

/** The first §5 message the form fails, or null (the request is not sent on failure). */
export function compareFormError(form: CompareForm, today: string): string | null {
  if (!form.resource) return COMPARE_MESSAGES.selectResource;
  if (!form.period) return COMPARE_MESSAGES.selectPeriod;
  if (!/^\d{4}-\d{2}-\d{2}$/.test(form.end)) return COMPARE_MESSAGES.selectEndDate;
  if (form.end > today) return COMPARE_MESSAGES.futureDate;
  return null;
}

export const seriesPath = (resource: CompareResource, end: string, period: ComparePeriod) =>
  `activities/${resource}/date/${end}/${period}.json`;

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
