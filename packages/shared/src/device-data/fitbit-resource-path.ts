import { z } from 'zod';
import { isCalendarDate } from '../dates';

/**
 * The resource paths of GET /api/getFitbitServerParticipantData/{participantId}/{email}/{path}
 * (device-data spec §7) that the server answers, parsed once here so server and web agree.
 * Paths follow the legacy Fitbit Web API (provider-apis §1.5) without `/1/user/-/`.
 */

/** Error texts of the Fitbit data calls (device-data spec §8), copied exactly. */
export const FITBIT_DATA_MESSAGES = {
  couldNotGetData: 'Error: could not get data from Fitbit server!',
  refreshFailed: 'Error: refresh token failed!',
  tooManyRequests: 'Too Many Requests',
  noData: 'Could not find any data!',
  parametersMissing: 'Error: Fitbit data request - some parameters are missing',
  badRequest: 'Error: Fitbit request - bad data request',
  requestFailed: 'Error: Fitbit request failed!',
} as const;

/**
 * Reasons of the Fitbit data errors. The error handler hides 5xx messages, so the web shows
 * the spec's text for these reasons itself: upstreamFailed → couldNotGetData.
 */
export const FITBIT_DATA_REASONS = {
  upstreamFailed: 'FITBIT_DATA_UNAVAILABLE',
  rateLimited: 'RATE_LIMITED',
  noData: 'NO_DATA',
} as const;

/**
 * Daily activity series served (legacy resource name → catalog metric key; null: not a
 * stored metric, answered live only — decision 0062).
 */
export const FITBIT_ACTIVITY_SERIES = {
  steps: 'steps',
  distance: 'distance',
  floors: 'floors',
  calories: 'calories',
  minutesSedentary: null,
  minutesLightlyActive: 'minutes_lightly_active',
  minutesFairlyActive: 'minutes_fairly_active',
  minutesVeryActive: 'minutes_very_active',
} as const;
export type FitbitActivitySeries = keyof typeof FITBIT_ACTIVITY_SERIES;

/** Activity intraday resources and detail levels (provider-apis §1.6). */
export const FITBIT_INTRADAY_RESOURCES = ['steps', 'distance', 'floors', 'calories'] as const;
export type FitbitIntradayResource = (typeof FITBIT_INTRADAY_RESOURCES)[number];
export const FITBIT_ACTIVITY_DETAILS = ['1min', '15min'] as const;
export const FITBIT_HEART_DETAILS = ['1sec', '1min', '5min', '15min'] as const;
export type FitbitHeartDetail = (typeof FITBIT_HEART_DETAILS)[number];

/** Periods of the by-period form (provider-apis §1.5); `max` is not offered. */
export const FITBIT_PERIODS = ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y'] as const;
export type FitbitPeriod = (typeof FITBIT_PERIODS)[number];

/** The longest range the legacy API accepts for activity series (1095 days). */
export const FITBIT_MAX_SERIES_DAYS = 1095;

/** The longest range per resource family, as the legacy API (provider-apis §1.5–§1.12). */
export const FITBIT_MAX_DAYS = {
  'activities-series': 1095,
  'heart-series': 366,
  weight: 31,
  fat: 30,
  sleep: 100,
  spo2: 30,
  cardioscore: 30,
  'foods-series': 1095,
  overview: 31,
} as const;

/** The overview's default range: the last 7 days (device-data spec §9). */
export const FITBIT_OVERVIEW_DEFAULT_PERIOD = '7d' as const;

/** Time window of an intraday request, `HH:mm` both inclusive. */
export type FitbitTimeWindow = { from: string; to: string };

/** A parsed resource path. Dates are civil yyyy-MM-dd, both inclusive. */
export type FitbitResourceRequest =
  | {
      kind: 'activities-series';
      resource: FitbitActivitySeries;
      tracker: boolean;
      start: string;
      end: string;
    }
  | {
      kind: 'activities-intraday';
      resource: FitbitIntradayResource;
      date: string;
      detail: (typeof FITBIT_ACTIVITY_DETAILS)[number];
      time?: FitbitTimeWindow;
    }
  | { kind: 'heart-series'; start: string; end: string }
  | {
      kind: 'heart-intraday';
      date: string;
      detail: FitbitHeartDetail;
      time?: FitbitTimeWindow;
    }
  | { kind: 'body-log'; resource: 'weight' | 'fat'; start: string; end: string }
  | { kind: 'sleep'; start: string; end: string; single: boolean }
  | { kind: 'spo2'; start: string; end: string; single: boolean }
  | { kind: 'cardioscore'; start: string; end: string }
  | { kind: 'foods-log'; date: string }
  | { kind: 'foods-series'; resource: 'caloriesIn' | 'water'; start: string; end: string }
  | {
      kind: 'activities-list';
      beforeDate?: string;
      afterDate?: string;
      sort: 'asc' | 'desc';
      limit: number;
    }
  | {
      /** Sleep v1.2 log list (provider-apis §1.8), paged like the activity log list. */
      kind: 'sleep-list';
      beforeDate?: string;
      afterDate?: string;
      sort: 'asc' | 'desc';
      limit: number;
    }
  | { kind: 'overview'; start: string; end: string };

export type ParsedResourcePath =
  | { ok: true; request: FitbitResourceRequest }
  | { ok: false; error: 'parametersMissing' | 'badRequest' };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** A calendar date in 1900–2100 (decision 0127): no Feb 30, no year 0000 or 9999. */
export const civilDateSchema = z.string().regex(DATE).refine(isCalendarDate);

const DAY_MS = 86_400_000;
const dayNumber = (date: string) => Date.parse(`${date}T00:00:00Z`) / DAY_MS;
const dateOf = (day: number) => new Date(day * DAY_MS).toISOString().slice(0, 10);

/** The first day of `period` ending on `end`; months and years are calendar ones, as Fitbit's. */
export function periodStart(end: string, period: FitbitPeriod): string {
  const days: Partial<Record<FitbitPeriod, number>> = { '1d': 1, '7d': 7, '30d': 30, '1w': 7 };
  const fixed = days[period];
  if (fixed !== undefined) return dateOf(dayNumber(end) - fixed + 1);
  const months = { '1m': 1, '3m': 3, '6m': 6, '1y': 12 }[period as '1m' | '3m' | '6m' | '1y'];
  const date = new Date(`${end}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() - months);
  return dateOf(date.getTime() / DAY_MS + 1);
}

/** Every civil date from start to end, inclusive. */
export function datesBetween(start: string, end: string): string[] {
  const dates: string[] = [];
  for (let day = dayNumber(start); day <= dayNumber(end); day++) dates.push(dateOf(day));
  return dates;
}

/** The civil date `days` after `date` (negative: before). */
export function addDays(date: string, days: number): string {
  return dateOf(dayNumber(date) + days);
}

type Failure = { ok: false; error: 'parametersMissing' | 'badRequest' };
const missing: Failure = { ok: false, error: 'parametersMissing' };
const bad: Failure = { ok: false, error: 'badRequest' };
const isDate = (value: string | undefined): value is string =>
  value !== undefined && civilDateSchema.safeParse(value).success;
const isPeriod = (value: string) => (FITBIT_PERIODS as readonly string[]).includes(value);
const TIME = /^([01]\d|2[0-3]):[0-5]\d$/;

/**
 * `{first}/{second}` of a series: a date and a period, or a start and an end (the tracker
 * active-minutes series of the spec send end first: `swapped` orders them).
 */
function range(
  first: string | undefined,
  second: string | undefined,
  today: string,
  maxDays: number,
  options: { swapped?: boolean } = {},
): { ok: true; start: string; end: string } | Failure {
  if (first === undefined || second === undefined) return missing;
  const resolve = (value: string) => (value === 'today' ? today : value);
  let start: string;
  let end: string;
  if (isPeriod(second)) {
    end = resolve(first);
    if (!isDate(end)) return bad;
    start = periodStart(end, second as FitbitPeriod);
  } else {
    start = resolve(first);
    end = resolve(second);
    if (options.swapped && isDate(start) && isDate(end) && start > end) [start, end] = [end, start];
  }
  if (!isDate(start) || !isDate(end)) return bad;
  const days = dayNumber(end) - dayNumber(start) + 1;
  if (days < 1 || days > maxDays) return bad;
  return { ok: true, start, end };
}

function timeWindow(rest: string[]): { ok: true; time?: FitbitTimeWindow } | Failure {
  if (rest.length === 0) return { ok: true };
  if (rest[0] !== 'time') return bad;
  if (rest.length < 3) return missing;
  const [, from, to, ...more] = rest;
  if (more.length > 0 || !TIME.test(from!) || !TIME.test(to!) || from! > to!) return bad;
  return { ok: true, time: { from: from!, to: to! } };
}

/**
 * Parses a resource path of the Fitbit data page (device-data spec §7), e.g.
 * `activities/steps/date/2026-11-01/2026-11-07.json`, `activities/heart/date/today/1d/1sec.json`,
 * `sleep/date/2026-11-01/2026-11-07.json`, `activities/list.json?beforeDate=…&sort=desc&limit=1`.
 * `today` resolves the word `today`. Missing segments → parametersMissing; anything unknown
 * or out of range → badRequest. `query` holds the list calls' query parameters.
 */
export function parseFitbitResourcePath(
  path: string,
  today: string,
  query: Record<string, string | undefined> = {},
): ParsedResourcePath {
  const [pathOnly, search] = path.split('?', 2);
  const params = { ...Object.fromEntries(new URLSearchParams(search ?? '')), ...query };
  const segments = pathOnly!
    .replace(/^\/+/, '')
    .replace(/\.json$/, '')
    .split('/');
  if (segments.some((segment) => segment === '')) return missing;
  const [category, ...rest] = segments;
  const resolveDay = (value: string | undefined) => (value === 'today' ? today : value);
  const ok = (request: FitbitResourceRequest): ParsedResourcePath => ({ ok: true, request });

  switch (category) {
    case 'overview': {
      // `overview` alone: the last 7 days; `overview/date/{d}/{period|end}` a chosen range.
      if (rest.length === 0) {
        const span = range(today, FITBIT_OVERVIEW_DEFAULT_PERIOD, today, FITBIT_MAX_DAYS.overview);
        return span.ok ? ok({ kind: 'overview', start: span.start, end: span.end }) : span;
      }
      const [dateWord, first, last, ...more] = rest;
      if (dateWord !== 'date') return bad;
      if (more.length > 0) return bad;
      const span = range(first, last, today, FITBIT_MAX_DAYS.overview);
      if (!span.ok) return span;
      return ok({ kind: 'overview', start: span.start, end: span.end });
    }
    case 'activities': {
      const [second, ...after] = rest;
      if (second === undefined) return missing;
      if (second === 'list') return after.length ? bad : logList('activities-list', params);
      if (second === 'heart') return heart(after, today);
      const tracker = second === 'tracker';
      const [resource, dateWord, first, last, ...more] = tracker ? after : [second, ...after];
      if (resource === undefined) return missing;
      if (dateWord !== 'date') return dateWord === undefined ? missing : bad;
      if (first === undefined || last === undefined) return missing;
      if (
        !tracker &&
        (FITBIT_INTRADAY_RESOURCES as readonly string[]).includes(resource) &&
        more.length > 0
      ) {
        // `{date}/1d/{detail}[/time/…]`: one day at minute detail.
        const [detail, ...time] = more;
        const date = resolveDay(first);
        if (
          last !== '1d' ||
          !(FITBIT_ACTIVITY_DETAILS as readonly string[]).includes(detail!) ||
          !isDate(date)
        )
          return bad;
        const window = timeWindow(time);
        if (!window.ok) return window;
        return ok({
          kind: 'activities-intraday',
          resource: resource as FitbitIntradayResource,
          date,
          detail: detail as '1min',
          ...(window.time && { time: window.time }),
        });
      }
      if (more.length > 0 || !(resource in FITBIT_ACTIVITY_SERIES)) return bad;
      const span = range(first, last, today, FITBIT_MAX_DAYS['activities-series'], {
        swapped: tracker,
      });
      if (!span.ok) return span;
      return ok({
        kind: 'activities-series',
        resource: resource as FitbitActivitySeries,
        tracker,
        start: span.start,
        end: span.end,
      });
    }
    case 'body': {
      const [log, resource, dateWord, first, last, ...more] = rest;
      if (log === undefined || resource === undefined) return missing;
      if (log !== 'log' || (resource !== 'weight' && resource !== 'fat')) return bad;
      if (dateWord !== 'date') return dateWord === undefined ? missing : bad;
      if (first === undefined) return missing;
      if (more.length > 0) return bad;
      const span =
        last === undefined
          ? range(first, '1d', today, 1)
          : range(first, last, today, FITBIT_MAX_DAYS[resource]);
      if (!span.ok) return span;
      return ok({ kind: 'body-log', resource, start: span.start, end: span.end });
    }
    case 'sleep':
    case 'spo2':
    case 'cardioscore': {
      if (category === 'sleep' && rest[0] === 'list')
        return rest.length > 1 ? bad : logList('sleep-list', params);
      const [dateWord, first, last, ...more] = rest;
      if (dateWord !== 'date') return dateWord === undefined ? missing : bad;
      if (first === undefined) return missing;
      if (more.length > 0) return bad;
      const span =
        last === undefined
          ? range(first, '1d', today, 1)
          : range(first, last, today, FITBIT_MAX_DAYS[category]);
      if (!span.ok) return span;
      if (category === 'cardioscore')
        return ok({ kind: 'cardioscore', start: span.start, end: span.end });
      return ok({ kind: category, start: span.start, end: span.end, single: last === undefined });
    }
    case 'foods': {
      const [log, second, third, fourth, fifth, ...more] = rest;
      if (log === undefined || second === undefined) return missing;
      if (log !== 'log') return bad;
      if (second === 'date') {
        const date = resolveDay(third);
        if (third === undefined) return missing;
        if (fourth !== undefined || !isDate(date)) return bad;
        return ok({ kind: 'foods-log', date });
      }
      if (second !== 'caloriesIn' && second !== 'water') return bad;
      if (third !== 'date') return third === undefined ? missing : bad;
      if (more.length > 0) return bad;
      const span = range(fourth, fifth, today, FITBIT_MAX_DAYS['foods-series']);
      if (!span.ok) return span;
      return ok({ kind: 'foods-series', resource: second, start: span.start, end: span.end });
    }
    default:
      return category === undefined ? missing : bad;
  }

  function heart(after: string[], todayDate: string): ParsedResourcePath {
    const [dateWord, first, last, detail, ...time] = after;
    if (dateWord !== 'date') return dateWord === undefined ? missing : bad;
    if (first === undefined || last === undefined) return missing;
    if (detail !== undefined) {
      const date = resolveDay(first);
      if (
        last !== '1d' ||
        !(FITBIT_HEART_DETAILS as readonly string[]).includes(detail) ||
        !isDate(date)
      )
        return bad;
      const window = timeWindow(time);
      if (!window.ok) return window;
      return ok({
        kind: 'heart-intraday',
        date,
        detail: detail as FitbitHeartDetail,
        ...(window.time && { time: window.time }),
      });
    }
    const span = range(first, last, todayDate, FITBIT_MAX_DAYS['heart-series']);
    if (!span.ok) return span;
    return ok({ kind: 'heart-series', start: span.start, end: span.end });
  }

  function logList(
    kind: 'activities-list' | 'sleep-list',
    query: Record<string, string | undefined>,
  ): ParsedResourcePath {
    const { beforeDate, afterDate, sort, limit, offset } = query;
    if (
      (beforeDate === undefined) === (afterDate === undefined) ||
      sort === undefined ||
      limit === undefined
    )
      return missing;
    const date = (beforeDate ?? afterDate)!.slice(0, 10);
    const count = Number(limit);
    if (!isDate(resolveDay(date)) || !Number.isInteger(count) || count < 1 || count > 100)
      return bad;
    // The legacy lists page with `next`/`previous`: the offset must be 0.
    if (offset !== undefined && offset !== '0') return bad;
    if (
      (beforeDate !== undefined && sort !== 'desc') ||
      (afterDate !== undefined && sort !== 'asc')
    )
      return bad;
    return ok({
      kind,
      ...(beforeDate !== undefined
        ? { beforeDate: resolveDay(date)! }
        : { afterDate: resolveDay(date)! }),
      sort: sort as 'asc' | 'desc',
      limit: count,
    });
  }
}
