/**
 * proto3 JSON conventions of the Google Health API: int64 as strings, durations as "Ns",
 * RFC 3339 UTC timestamps, civil times as objects with zero fields left out.
 */

/** int64 → string (proto3 JSON). */
export function int64(value: number): string {
  return String(Math.round(value));
}

/** RFC 3339 in UTC without fractional seconds when they are zero. */
export function timestamp(utcMs: number): string {
  const iso = new Date(utcMs).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** RFC 3339 with microseconds, as Google writes createTime / updateTime. */
export function timestampMicros(utcMs: number, micros: number): string {
  const iso = new Date(utcMs).toISOString();
  return `${iso.slice(0, 23)}${String(micros % 1000).padStart(3, '0')}Z`;
}

/** google.protobuf.Duration JSON: seconds with an `s` suffix. */
export function duration(seconds: number): string {
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(3)}s`;
}

/** `{year, month, day}` of a `YYYY-MM-DD` string. */
export function dateObject(date: string): { year: number; month: number; day: number } {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  return { year, month, day };
}

/** CivilDateTime of civil ms: zero time fields are omitted, so midnight is `time: {}`. */
export function civilDateTime(civilMs: number) {
  const d = new Date(civilMs);
  const time: { hours?: number; minutes?: number; seconds?: number; nanos?: number } = {};
  if (d.getUTCHours()) time.hours = d.getUTCHours();
  if (d.getUTCMinutes()) time.minutes = d.getUTCMinutes();
  if (d.getUTCSeconds()) time.seconds = d.getUTCSeconds();
  if (d.getUTCMilliseconds()) time.nanos = d.getUTCMilliseconds() * 1_000_000;
  return {
    date: { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() },
    time,
  };
}

/** ObservationTimeInterval; `withCivil: false` for sessions (live sleep/exercise omit them). */
export function interval(
  startUtc: number,
  startOffset: number,
  endUtc: number,
  endOffset: number,
  withCivil = true,
) {
  return {
    startTime: timestamp(startUtc),
    startUtcOffset: duration(startOffset),
    endTime: timestamp(endUtc),
    endUtcOffset: duration(endOffset),
    ...(withCivil && {
      civilStartTime: civilDateTime(startUtc + startOffset * 1000),
      civilEndTime: civilDateTime(endUtc + endOffset * 1000),
    }),
  };
}

/** ObservationSampleTime. */
export function sampleTime(utcMs: number, offsetSeconds: number) {
  return {
    physicalTime: timestamp(utcMs),
    utcOffset: duration(offsetSeconds),
    civilTime: civilDateTime(utcMs + offsetSeconds * 1000),
  };
}

/** Drops properties whose value is 0, "0", "" or undefined (proto3 omits defaults). */
export function omitDefaults<T extends Record<string, unknown>>(object: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value === undefined || value === 0 || value === '0' || value === '' || value === '0s')
      continue;
    (out as Record<string, unknown>)[key] = value;
  }
  return out;
}
