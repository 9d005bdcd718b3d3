import type { ZodType } from 'zod';
import {
  addDays,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { DailyRollupPoint, GoogleHealthClient } from '../google-health/google-health.client';
import type { StoredReading } from '../../modules/sync/readings.service';

/**
 * One resource family of the Fitbit data call (decision 0062): how stored readings answer it
 * (when they can), how Google Health answers it, the legacy API path and the legacy shape.
 * The service stays the same for every family; the translators hold the differences.
 */
export type FitbitFamily<R extends FitbitResourceRequest> = {
  /** The stored metrics and instants that answer the request, or null: live only. */
  stored?: (request: R) => {
    metricKeys: string[];
    from: Date;
    to: Date;
    /**
     * Metrics whose readings lie elsewhere than [from, to) — a daily reading at its date's
     * 00:00 UTC beside a day's samples — with the range sync must cover for them. A daily
     * metric syncs once a day: asked over the samples' wider range (up to 14 h past the day),
     * it would count as covered only in the hour after each daily sync.
     */
    coverage?: Record<string, { from: Date; to: Date }>;
    /** Metrics read with them when stored, whose coverage is not required (legacy-only BMI). */
    alsoRead?: string[];
    /**
     * Only readings of these local days are wanted: the store then reads only their hours
     * (the day summary's first and last instant), not the ±14 h margin of [from, to).
     */
    localDays?: { start: string; end: string };
  } | null;
  fromStore?: (request: R, readings: readonly StoredReading[]) => unknown;
  google: (request: R, api: GoogleApi) => Promise<unknown>;
  /** Path under the legacy API's base URL, e.g. `/1/user/-/activities/heart/date/…json`. */
  legacyPath: (request: R) => string;
  legacySchema: ZodType;
  /** "Could not find any data!" when true, whoever answered. */
  isEmpty: (answer: unknown) => boolean;
};

export type Json = Record<string, unknown>;
export const record = (value: unknown): Json =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
export const list = (value: unknown): Json[] => (Array.isArray(value) ? value.map(record) : []);
/** int64 as string or number (facts §3), or null. */
export function num(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'string' && value.trim() !== '') {
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  return null;
}
export const round = (value: number, places: number) =>
  Math.round(value * 10 ** places) / 10 ** places;

const DAY_MS = 86_400_000;
/** Local offsets run from −12 h to +14 h: a civil day's instants lie within this much of its UTC day. */
const MAX_OFFSET_MS = 14 * 3_600_000;

/** The instants that can hold readings of civil days [start, end]. */
export function instantsOfDays(start: string, end: string): { from: Date; to: Date } {
  return {
    from: new Date(Date.parse(`${start}T00:00:00Z`) - MAX_OFFSET_MS),
    to: new Date(Date.parse(`${addDays(end, 1)}T00:00:00Z`) + MAX_OFFSET_MS),
  };
}

/** Daily readings live at the civil date's 00:00 UTC. */
export function instantsOfDailyReadings(start: string, end: string): { from: Date; to: Date } {
  return {
    from: new Date(`${start}T00:00:00Z`),
    to: new Date(Date.parse(`${end}T00:00:00Z`) + DAY_MS),
  };
}

/** Local wall time `yyyy-MM-ddTHH:mm:ss.SSS` of an instant at an offset (minutes east of UTC). */
export function localTime(instant: Date | string, offsetMinutes: number): string {
  const ms =
    (typeof instant === 'string' ? Date.parse(instant) : instant.getTime()) +
    offsetMinutes * 60_000;
  return new Date(ms).toISOString().slice(0, 23);
}

/** A Google duration ("32400s", "-14400s") in minutes; 0 when missing. */
export function offsetOf(duration: unknown): number {
  if (typeof duration !== 'string') return 0;
  const seconds = Number.parseFloat(duration.replace(/s$/, ''));
  return Number.isFinite(seconds) ? Math.round(seconds / 60) : 0;
}

/** A Google duration in seconds; 0 when missing. */
export function secondsOf(duration: unknown): number {
  if (typeof duration !== 'string') return 0;
  const seconds = Number.parseFloat(duration.replace(/s$/, ''));
  return Number.isFinite(seconds) ? seconds : 0;
}

/** yyyy-MM-dd of a Google `Date` object. */
export function dateOfObject(value: unknown): string | null {
  const date = record(value);
  const [year, month, day] = [num(date.year), num(date.month), num(date.day)];
  if (year === null || month === null || day === null) return null;
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

/** The device name a point came from (what sync stores as a reading's data source). */
export function deviceOf(point: Json): string | null {
  const device = record(record(point.dataSource).device);
  return typeof device.displayName === 'string' ? device.displayName : null;
}

/** Google Health calls with the connection's token, in the chunks Google allows. */
export type GoogleApi = {
  /** dailyRollUp over civil days [start, end], asked `maxDays` at a time. */
  dailyRollUp(
    dataType: string,
    start: string,
    end: string,
    maxDays: 14 | 90,
  ): Promise<DailyRollupPoint[]>;
  /** Every point of a list whose civil `member` falls in days [start, end]. */
  listCivil(
    dataType: string,
    member: string,
    start: string,
    end: string,
    pageSize?: number,
  ): Promise<Json[]>;
  /** Every point of a daily list type (`…date` filter) in days [start, end]. */
  listDaily(dataType: string, start: string, end: string): Promise<Json[]>;
  list(dataType: string, filter: string, pageSize?: number, maxPages?: number): Promise<Json[]>;
};

export function googleApi(client: GoogleHealthClient, token: string): GoogleApi {
  const filterName = (dataType: string) => dataType.replaceAll('-', '_');
  return {
    async dailyRollUp(dataType, start, end, maxDays) {
      const points: DailyRollupPoint[] = [];
      for (let first = start; first <= end; first = addDays(first, maxDays)) {
        const last = addDays(first, maxDays - 1) < end ? addDays(first, maxDays - 1) : end;
        points.push(...(await client.dailyRollUp(token, dataType, first, addDays(last, 1))));
      }
      return points;
    },
    listCivil(dataType, member, start, end, pageSize) {
      const field = `${filterName(dataType)}.${member}`;
      const filter = `${field} >= "${start}T00:00:00" AND ${field} < "${addDays(end, 1)}T00:00:00"`;
      return client.listDataPoints(
        token,
        dataType,
        filter,
        pageSize === undefined ? {} : { pageSize },
      );
    },
    listDaily(dataType, start, end) {
      const field = `${filterName(dataType)}.date`;
      return client.listDataPoints(
        token,
        dataType,
        `${field} >= "${start}" AND ${field} < "${addDays(end, 1)}"`,
      );
    },
    list(dataType, filter, pageSize, maxPages) {
      return client.listDataPoints(token, dataType, filter, {
        ...(pageSize && { pageSize }),
        ...(maxPages && { maxPages }),
      });
    },
  };
}

/** The one body of a list point (its union key). */
export function bodyOf(point: Json, jsonKey: string): Json {
  return record(point[jsonKey]);
}

/**
 * Promise.all that waits for every call before failing: a rejected call must not leave the
 * others running (and retrying upstream) after the request has been answered.
 */
export async function settled<T extends readonly unknown[]>(calls: {
  [K in keyof T]: Promise<T[K]>;
}): Promise<T> {
  const results = await Promise.allSettled(calls);
  const failed = results.find(
    (result): result is PromiseRejectedResult => result.status === 'rejected',
  );
  if (failed) throw failed.reason;
  return results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

type LogListRequest = Extract<FitbitResourceRequest, { kind: 'activities-list' | 'sleep-list' }>;

/**
 * A Fitbit log list (`activities/list.json`, `sleep/list.json`) from a Google Health list
 * type: the `limit` logs before a date (newest first) or from a date on (oldest first),
 * ordered by logId as `sort` asks, with Fitbit's pagination block (`next` left empty: one
 * page per request). `member` is the civil time the dates compare with; `toLog` drops a
 * point by answering null.
 */
export async function logListFromGoogle<TLog extends { logId: number }>(
  request: LogListRequest,
  api: GoogleApi,
  source: { dataType: string; member: string; toLog: (point: Json) => TLog | null },
) {
  const filter = request.beforeDate
    ? `${source.member} < "${request.beforeDate}T00:00:00"`
    : `${source.member} >= "${request.afterDate}T00:00:00"`;
  // Google lists newest first, 25 a page: before a date the first pages suffice; after a
  // date every page is read (at most 500 logs, over a year of daily sessions or nights).
  const pages = request.beforeDate ? Math.ceil(request.limit / 25) : 20;
  const points = await api.list(source.dataType, filter, 25, pages);
  const logs = points
    .map(source.toLog)
    .filter((log): log is TLog => log !== null)
    .sort((a, b) => (request.sort === 'asc' ? a.logId - b.logId : b.logId - a.logId))
    .slice(0, request.limit);
  const pagination = {
    ...(request.beforeDate
      ? { beforeDate: request.beforeDate }
      : { afterDate: request.afterDate! }),
    limit: request.limit,
    next: '',
    offset: 0,
    previous: '',
    sort: request.sort,
  };
  return { logs, pagination };
}
