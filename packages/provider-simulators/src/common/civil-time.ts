/**
 * Civil (wall-clock) time helpers. Simulated people live in IANA time zones with daylight
 * saving time; providers report local days (Fitbit) or UTC plus per-point offsets (Google).
 *
 * A "civil ms" value is the local wall time encoded as if it were UTC
 * (`Date.UTC(y, m, d, h, mi, s)`), which makes local arithmetic plain integer arithmetic.
 * A "day number" counts days since 1970-01-01 (Omron and Dexcom call it a local day
 * index and address times as day number + minute of day).
 */

export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The zone's UTC offset in seconds at the given instant (cached per zone and UTC hour). */
export function utcOffsetSeconds(timeZone: string, utcMs: number): number {
  const hour = Math.floor(utcMs / HOUR_MS);
  const key = `${timeZone}|${hour}`;
  let offset = offsetCache.get(key);
  if (offset === undefined) {
    offset = computeOffsetSeconds(timeZone, hour * HOUR_MS);
    if (offsetCache.size > 200_000) offsetCache.clear();
    offsetCache.set(key, offset);
  }
  return offset;
}

/** The zone's UTC offset in minutes at the given instant (e.g. -300 for New York in winter). */
export function utcOffsetMinutes(timeZone: string, utcMs: number): number {
  return utcOffsetSeconds(timeZone, utcMs) / 60;
}

/** Local wall time (as civil ms) of an instant in a zone. */
export function toCivilMs(timeZone: string, utcMs: number): number {
  return utcMs + utcOffsetSeconds(timeZone, utcMs) * 1000;
}

/**
 * The instant at which the zone's clocks show the given civil time. For a skipped local time
 * (spring forward) the later offset is used; for a repeated one, the first occurrence.
 */
export function civilToUtcMs(timeZone: string, civilMs: number): number {
  const first = civilMs - utcOffsetSeconds(timeZone, civilMs) * 1000;
  const second = civilMs - utcOffsetSeconds(timeZone, first) * 1000;
  if (toCivilMs(timeZone, second) === civilMs) {
    // Prefer the earlier instant when the local time happens twice.
    const earlier = second - HOUR_MS;
    return toCivilMs(timeZone, earlier) === civilMs ? earlier : second;
  }
  return first;
}

/** The instant at which the zone's clocks show `minuteOfDay` on local day number `localDay`. */
export function localToEpoch(timeZone: string, localDay: number, minuteOfDay: number): number {
  return civilToUtcMs(timeZone, localDay * DAY_MS + minuteOfDay * MINUTE_MS);
}

/** Local day number of an instant in a zone. */
export function localDayIndex(timeZone: string, utcMs: number): number {
  return Math.floor(toCivilMs(timeZone, utcMs) / DAY_MS);
}

/** `YYYY-MM-DD` → day number, or null when it is not a real date. */
export function parseDay(date: string): number | null {
  return isValidDate(date) ? dayNumberOf(date) : null;
}

/** `YYYY-MM-DD` → day number. */
export function dayNumberOf(date: string): number {
  return Math.floor(civilMsOfDate(date) / DAY_MS);
}

/** Day number → `YYYY-MM-DD`. */
export function dateOfDayNumber(dayNumber: number): string {
  return new Date(dayNumber * DAY_MS).toISOString().slice(0, 10);
}

/** `YYYY-MM-DD` → civil ms of its midnight; throws RangeError for an invalid date. */
export function civilMsOfDate(date: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  if (!match) throw new RangeError(`Invalid date: ${date}`);
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const ms = Date.UTC(year, month - 1, day);
  const check = new Date(ms);
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) {
    throw new RangeError(`Invalid date: ${date}`);
  }
  return ms;
}

/** True when the string is a real calendar date in `YYYY-MM-DD` form. */
export function isValidDate(date: string): boolean {
  try {
    civilMsOfDate(date);
    return true;
  } catch {
    return false;
  }
}

export function addDays(date: string, days: number): string {
  return dateOfDayNumber(dayNumberOf(date) + days);
}

/** Local date (`YYYY-MM-DD`) of an instant in a zone. */
export function localDateOf(timeZone: string, utcMs: number): string {
  return dateOfDayNumber(Math.floor(toCivilMs(timeZone, utcMs) / DAY_MS));
}

/** The UTC range [start, end) of a local day; 23 or 25 hours long on DST change days. */
export function localDayUtcRange(timeZone: string, date: string): [number, number] {
  const midnight = civilMsOfDate(date);
  return [civilToUtcMs(timeZone, midnight), civilToUtcMs(timeZone, midnight + DAY_MS)];
}

/** Day of week of a date, 0 = Sunday. */
export function weekdayOf(date: string): number {
  return new Date(civilMsOfDate(date)).getUTCDay();
}

/** Formats civil ms as `YYYY-MM-DDTHH:mm:ss` (plus `.SSS` when asked). */
export function formatCivil(civilMs: number, withMillis = false): string {
  const iso = new Date(civilMs).toISOString();
  return withMillis ? iso.slice(0, 23) : iso.slice(0, 19);
}

/** `YYYY-MM-DDTHH:mm:ss` of an instant in UTC (no zone suffix). */
export function formatUtcDateTime(utcMs: number): string {
  return formatCivil(utcMs);
}

/** `YYYY-MM-DDTHH:mm:ss` of an instant shifted by `offsetMinutes` (no zone suffix). */
export function formatLocalDateTime(utcMs: number, offsetMinutes: number): string {
  return formatCivil(utcMs + offsetMinutes * MINUTE_MS);
}

/** `HH:mm:ss` of civil ms. */
export function formatClock(civilMs: number): string {
  return new Date(civilMs).toISOString().slice(11, 19);
}

/** Offset in seconds as `+HH:MM` / `-HH:MM`. */
export function formatOffset(offsetSeconds: number): string {
  const sign = offsetSeconds < 0 ? '-' : '+';
  const abs = Math.abs(offsetSeconds);
  const hours = String(Math.floor(abs / 3600)).padStart(2, '0');
  const minutes = String(Math.floor((abs % 3600) / 60)).padStart(2, '0');
  return `${sign}${hours}:${minutes}`;
}

const offsetCache = new Map<string, number>();
const formatters = new Map<string, Intl.DateTimeFormat>();

function computeOffsetSeconds(timeZone: string, utcMs: number): number {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(timeZone, formatter);
  }
  const parts: Record<string, number> = {};
  for (const part of formatter.formatToParts(new Date(utcMs))) {
    if (part.type !== 'literal') parts[part.type] = Number(part.value);
  }
  const civil = Date.UTC(
    parts.year ?? 1970,
    (parts.month ?? 1) - 1,
    parts.day ?? 1,
    parts.hour ?? 0,
    parts.minute ?? 0,
    parts.second ?? 0,
  );
  return Math.round((civil - utcMs) / 60_000) * 60;
}
