/**
 * Participant-local civil days (issue 28, decision 0180): the one rule every figure uses to
 * decide which day a reading counts on and which days "the last N days" are — weekly tiles,
 * the Fitbit overview, the completeness grid and score, the adherence CSV, exports' daily
 * values and the digest mails.
 *
 * - A reading counts on its **local civil date**: its instant (a session's end: sleep counts
 *   on its wake-up day) plus the participant's UTC offset stored with it. Daily readings
 *   (steps, resting heart rate) are stored at 00:00 UTC of their civil date with no offset,
 *   so they land on their own date (decision 0051; `readingDay` in `sync/daily-summary.ts` is
 *   the same rule in SQL).
 * - A participant's **today** is the civil date at their current offset (the offset of their
 *   latest reading that carries one; UTC when none does).
 * - **The last N days** are N complete local days: the N days before today. Today, still
 *   under way, is never one of them.
 *
 * Imported by path (`@trialpulse/shared/civil-days`). Days are `YYYY-MM-DD` strings; day
 * arithmetic is on the calendar (no time zone can make a day 23 or 25 hours long here).
 */

const DAY_MS = 86_400_000;

/** A span of civil days, both ends included. */
export type CivilDayRange = { start: string; end: string };

/** A reading as far as its day goes. */
export type DayedReading = {
  recordedAt: Date;
  endAt?: Date | null;
  utcOffsetMinutes: number | null;
};

/** The civil date at `at` for a clock `offsetMinutes` ahead of UTC (null: UTC). */
export function civilDayAt(at: Date | number, offsetMinutes: number | null): string {
  const ms = typeof at === 'number' ? at : at.getTime();
  return new Date(ms + (offsetMinutes ?? 0) * 60_000).toISOString().slice(0, 10);
}

/** The local civil date a reading counts on (its end for a session, plus its offset). */
export function readingDay(reading: DayedReading): string {
  return civilDayAt(reading.endAt ?? reading.recordedAt, reading.utcOffsetMinutes);
}

/** `day` moved by `days` calendar days. */
export function shiftCivilDay(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

/** Days from `start` to `end`, both included (0 when `end` is before `start`). */
export function civilDaysIn({ start, end }: CivilDayRange): number {
  return Math.max(
    0,
    Math.round((Date.parse(`${end}T00:00:00Z`) - Date.parse(`${start}T00:00:00Z`)) / DAY_MS) + 1,
  );
}

/** Every day from `start` to `end`, oldest first. */
export function civilDays(range: CivilDayRange): string[] {
  return Array.from({ length: civilDaysIn(range) }, (_, index) =>
    shiftCivilDay(range.start, index),
  );
}

/** The `count` days ending `end` (included), oldest first. */
export function civilDaysEnding(end: string, count: number): string[] {
  return civilDays({ start: shiftCivilDay(end, -(count - 1)), end });
}

/** The participant's today: the civil date at `now` on a clock `offsetMinutes` ahead of UTC. */
export function participantToday(now: Date, offsetMinutes: number | null): string {
  return civilDayAt(now, offsetMinutes);
}

/**
 * A trial's today: the latest of its participants' todays at their current offsets (UTC for
 * one without any; UTC's today for a trial without participants). The completeness grid's
 * last column, so every participant's own today is on it, even east of UTC after its midnight.
 */
export function trialToday(now: Date, offsets: readonly (number | null)[]): string {
  return (
    offsets.reduce<string | null>((latest, offset) => {
      const today = participantToday(now, offset);
      return latest === null || today > latest ? today : latest;
    }, null) ?? participantToday(now, null)
  );
}

/**
 * The last `count` complete local days at `now`: the `count` days before the participant's
 * today (today is under way and never counted).
 */
export function lastCompleteDays(
  now: Date,
  offsetMinutes: number | null,
  count: number,
): CivilDayRange {
  const end = shiftCivilDay(participantToday(now, offsetMinutes), -1);
  return { start: shiftCivilDay(end, -(count - 1)), end };
}

/** The `count` days just before `range` (the "previous N days" a tile compares with). */
export function previousDays(range: CivilDayRange, count = civilDaysIn(range)): CivilDayRange {
  const end = shiftCivilDay(range.start, -1);
  return { start: shiftCivilDay(end, -(count - 1)), end };
}

/** `±hh:mm` of an offset in minutes (`Z` is not used: a local day says its offset). */
export function offsetText(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/**
 * A local civil day as an interval with its offset: `2026-11-21T00:00:00-05:00` to
 * `2026-11-22T00:00:00-05:00` (the offset the day was lived at; on a day the clocks change
 * the end is written with the same offset, so the interval may be 23 or 25 hours of real
 * time only when the caller passes the new offset for the end).
 */
export function localDayInterval(
  day: string,
  offsetMinutes: number,
  endOffsetMinutes: number = offsetMinutes,
): { start: string; end: string } {
  return {
    start: `${day}T00:00:00${offsetText(offsetMinutes)}`,
    end: `${shiftCivilDay(day, 1)}T00:00:00${offsetText(endOffsetMinutes)}`,
  };
}
