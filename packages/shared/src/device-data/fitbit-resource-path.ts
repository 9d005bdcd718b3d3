import { z } from 'zod';

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

/** Daily activity series served (legacy resource name → catalog metric key). */
export const FITBIT_ACTIVITY_SERIES = {
  steps: 'steps',
  distance: 'distance',
  floors: 'floors',
  calories: 'calories',
} as const;
export type FitbitActivitySeries = keyof typeof FITBIT_ACTIVITY_SERIES;

/** Periods of the by-period form (provider-apis §1.5); `max` is not offered. */
export const FITBIT_PERIODS = ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y'] as const;
export type FitbitPeriod = (typeof FITBIT_PERIODS)[number];

/** The longest range the legacy API accepts for activity series (1095 days). */
export const FITBIT_MAX_SERIES_DAYS = 1095;

export type FitbitResourceRequest = {
  kind: 'activities-series';
  resource: FitbitActivitySeries;
  /** Civil dates yyyy-MM-dd, both inclusive. */
  start: string;
  end: string;
};

export type ParsedResourcePath =
  | { ok: true; request: FitbitResourceRequest }
  | { ok: false; error: 'parametersMissing' | 'badRequest' };

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export const civilDateSchema = z
  .string()
  .regex(DATE)
  .refine((value) => {
    const date = new Date(`${value}T00:00:00Z`);
    return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
  });

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

/**
 * Parses a resource path such as `activities/steps/date/2026-11-01/2026-11-07.json` or
 * `activities/steps/date/2026-11-07/7d.json`. `today` is resolved with `today` (the caller's
 * clock). Missing segments → parametersMissing; anything unknown or out of range → badRequest.
 */
export function parseFitbitResourcePath(path: string, today: string): ParsedResourcePath {
  const segments = path.replace(/^\/+/, '').replace(/\.json$/, '').split('/');
  if (segments.some((segment) => segment === '')) return { ok: false, error: 'parametersMissing' };
  const [category, resource, dateWord, first, second, ...rest] = segments;
  if (category !== 'activities' || !resource || !(resource in FITBIT_ACTIVITY_SERIES)) {
    return { ok: false, error: category && resource ? 'badRequest' : 'parametersMissing' };
  }
  if (dateWord !== 'date' || first === undefined || second === undefined) return { ok: false, error: 'parametersMissing' };
  if (rest.length > 0) return { ok: false, error: 'badRequest' };
  const resolve = (value: string) => (value === 'today' ? today : value);
  const end = (FITBIT_PERIODS as readonly string[]).includes(second) ? resolve(first) : resolve(second);
  const start = (FITBIT_PERIODS as readonly string[]).includes(second)
    ? civilDateSchema.safeParse(end).success
      ? periodStart(end, second as FitbitPeriod)
      : ''
    : resolve(first);
  if (!civilDateSchema.safeParse(start).success || !civilDateSchema.safeParse(end).success) {
    return { ok: false, error: 'badRequest' };
  }
  const days = dayNumber(end) - dayNumber(start) + 1;
  if (days < 1 || days > FITBIT_MAX_SERIES_DAYS) return { ok: false, error: 'badRequest' };
  return { ok: true, request: { kind: 'activities-series', resource: resource as FitbitActivitySeries, start, end } };
}
