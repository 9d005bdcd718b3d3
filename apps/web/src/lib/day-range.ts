/**
 * Calendar-day ranges of the data forms' shortcuts and the tiles' "which days" captions
 * (issue 30, decision 0166). Days are `yyyy-MM-dd` strings in the time zone the form's
 * "today" comes from (the forms use the browser's, as their date pickers do).
 */

/** The shortcuts every data form offers: the last 7, 14, 30 and 90 days. */
export const DAY_RANGE_SHORTCUTS = [7, 14, 30, 90] as const;

export type DayRange = { start: string; end: string };

const DAY = 86_400_000;

/** `day` moved by `days` calendar days. */
export function shiftDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY).toISOString().slice(0, 10);
}

/** The last `days` calendar days ending `today` (today included): 7 days of 18 Nov = 12–18 Nov. */
export function lastDays(days: number, today: string): DayRange {
  return { start: shiftDay(today, -(days - 1)), end: today };
}

/** Days from `start` to `end`, both included. */
export function daysIn({ start, end }: DayRange): number {
  return Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY) + 1;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const parts = (day: string) => {
  const [year, month, date] = day.split('-').map(Number) as [number, number, number];
  return { year, month: MONTHS[month - 1]!, date };
};

/**
 * A range as people read it, the shortest way: "12–18 Nov 2026", "28 Nov – 4 Dec 2026",
 * "28 Dec 2026 – 3 Jan 2027", "18 Nov 2026" for one day. Without `year`, the year is left
 * out ("12–18 Nov").
 */
export function dayRangeText({ start, end }: DayRange, { year = true } = {}): string {
  const a = parts(start);
  const b = parts(end);
  const y = (value: number) => (year ? ` ${value}` : '');
  if (start === end) return `${b.date} ${b.month}${y(b.year)}`;
  if (a.year !== b.year)
    return `${a.date} ${a.month}${y(a.year)} – ${b.date} ${b.month}${y(b.year)}`;
  if (a.month !== b.month) return `${a.date} ${a.month} – ${b.date} ${b.month}${y(b.year)}`;
  return `${a.date}–${b.date} ${b.month}${y(b.year)}`;
}

/** A tile's caption: "7 days: 12–18 Nov". */
export function coverText(range: DayRange): string {
  return `${daysIn(range)} days: ${dayRangeText(range, { year: false })}`;
}

/** `at`'s calendar date in the browser's time zone, `yyyy-MM-dd`. */
export function localDay(at: Date): string {
  return new Date(at.getTime() - at.getTimezoneOffset() * 60_000).toISOString().slice(0, 10);
}

/** The period of `days` ending now, on whole minutes (so a query key stays put while a page is open). */
export function periodEndingNow(days: number): { start: Date; end: Date } {
  const end = new Date(Math.ceil(Date.now() / 60_000) * 60_000);
  return { start: new Date(end.getTime() - days * DAY), end };
}

/** A period of instants as a report header shows it: "14 Nov 2026 10:20 – 28 Nov 2026 10:20". */
export function periodText({ start, end }: { start: Date; end: Date }): string {
  return `${instantText(start)} – ${instantText(end)}`;
}

/** An instant in the browser's time zone: "28 Nov 2026 10:20". */
export function instantText(at: Date): string {
  const day = localDay(at);
  const time = `${String(at.getHours()).padStart(2, '0')}:${String(at.getMinutes()).padStart(2, '0')}`;
  return `${dayRangeText({ start: day, end: day })} ${time}`;
}
