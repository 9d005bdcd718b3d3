/**
 * Civil-time helpers for IANA time zones. Provider records carry local times and UTC
 * offsets that follow daylight-saving rules, so offsets come from Intl, cached per hour.
 */
export const MINUTE_MS = 60_000;
export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** UTC offset in minutes (e.g. -300 for New York in winter) at an instant. */
export function utcOffsetMinutes(timeZone: string, epochMs: number): number {
  const hour = Math.floor(epochMs / HOUR_MS);
  const key = `${timeZone}|${hour}`;
  const cached = offsetCache.get(key);
  if (cached !== undefined) return cached;
  const name = formatterFor(timeZone)
    .formatToParts(new Date(hour * HOUR_MS))
    .find((part) => part.type === 'timeZoneName')?.value;
  const match = /GMT([+-])(\d{2}):(\d{2})/.exec(name ?? '');
  const offset = match
    ? (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]))
    : 0;
  if (offsetCache.size > 200_000) offsetCache.clear();
  offsetCache.set(key, offset);
  return offset;
}

/** The instant at which the wall clock in `timeZone` shows the given local time. */
export function localToEpoch(timeZone: string, localDay: number, minuteOfDay: number): number {
  const wall = localDay * DAY_MS + minuteOfDay * MINUTE_MS;
  const guess = wall - utcOffsetMinutes(timeZone, wall) * MINUTE_MS;
  return wall - utcOffsetMinutes(timeZone, guess) * MINUTE_MS;
}

/** Days since 1970-01-01 on the local calendar of `timeZone`. */
export function localDayIndex(timeZone: string, epochMs: number): number {
  return Math.floor((epochMs + utcOffsetMinutes(timeZone, epochMs) * MINUTE_MS) / DAY_MS);
}

/** `YYYY-MM-DDTHH:mm:ss` of the instant shifted by `offsetMinutes` (no zone suffix). */
export function formatLocalDateTime(epochMs: number, offsetMinutes: number): string {
  return new Date(epochMs + offsetMinutes * MINUTE_MS).toISOString().slice(0, 19);
}

/** `YYYY-MM-DDTHH:mm:ss` in UTC (no zone suffix). */
export function formatUtcDateTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 19);
}

/** `+HH:MM` / `-HH:MM`. */
export function formatOffset(offsetMinutes: number): string {
  const sign = offsetMinutes < 0 ? '-' : '+';
  const abs = Math.abs(offsetMinutes);
  return `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
}

/** `YYYY-MM-DD` of a local day index. */
export function formatDay(localDay: number): string {
  return new Date(localDay * DAY_MS).toISOString().slice(0, 10);
}

/** Local day index of a `YYYY-MM-DD` string, or null when it is not a real date. */
export function parseDay(text: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
  const ms = Date.parse(`${text}T00:00:00Z`);
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== text) return null;
  return Math.floor(ms / DAY_MS);
}

const formatters = new Map<string, Intl.DateTimeFormat>();
const offsetCache = new Map<string, number>();

function formatterFor(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}
