import { civilToInstant, isTimeZone } from '../../lib/civil-time';
import {
  DAY_MS,
  num,
  utcDate,
  type FetchContext,
  type SourceReading,
  type SyncSource,
  type SyncStream,
} from '../../modules/sync/sources/types';

/**
 * The retired Fitbit Web API (decision 0104), for connections linked before Google Health
 * took over. It counts 150 calls per user per clock hour, so only what comes in long ranges
 * is read: the daily activity time series (one call per metric for up to 1,095 days),
 * resting heart rate (the daily heart series, 366 days), weight logs (31 days) and sleep
 * logs (100 days). Intraday heart rate (one day per call) is not: a year would cost 365
 * calls. Local times are turned into instants with the user's time zone from profile.json.
 * A 429's wait comes from `Fitbit-Rate-Limit-Reset` (seconds to the top of the hour); once
 * the API is shut down every call answers 410 Gone and the connection needs re-consent
 * through Google Health (sync.service.ts). Facts: shared/reference/provider-apis.md §1.
 */

/** Fitbit allows 150 requests per user and application per clock hour (facts §1.3). */
export const FITBIT_LEGACY_CALLS_PER_HOUR = 150;

type Json = Record<string, unknown>;
const record = (value: unknown): Json =>
  value && typeof value === 'object' ? (value as Json) : {};

/** The calendar days [first, last] of a window (daily readings live at 00:00 UTC of their date). */
function daysOf(window: { from: Date; to: Date }): { first: string; last: string } {
  return { first: utcDate(window.from), last: utcDate(new Date(window.to.getTime() - 1)) };
}

/** Activity time series resource (legacy path segment) of each daily metric. */
const ACTIVITY_RESOURCES: Record<string, string> = {
  steps: 'steps',
  distance: 'distance',
  floors: 'floors',
  calories: 'calories',
  minutes_sedentary: 'minutesSedentary',
  minutes_lightly_active: 'minutesLightlyActive',
  minutes_fairly_active: 'minutesFairlyActive',
  minutes_very_active: 'minutesVeryActive',
};

const activityStream: SyncStream = {
  key: 'activities',
  metrics: Object.keys(ACTIVITY_RESOURCES),
  cadence: 'daily',
  maxWindowDays: 365,
  async fetch(ctx, window, wanted) {
    const { first, last } = daysOf(window);
    const readings: SourceReading[] = [];
    for (const [metricKey, resource] of Object.entries(ACTIVITY_RESOURCES)) {
      if (!wanted.has(metricKey)) continue;
      const answer = record(
        await ctx.request({
          method: 'GET',
          path: `/1/user/-/activities/${resource}/date/${first}/${last}.json`,
        }),
      );
      const series = answer[`activities-${resource}`];
      for (const entry of Array.isArray(series) ? series.map(record) : []) {
        const value = num(entry.value);
        if (typeof entry.dateTime !== 'string' || value === null) continue;
        readings.push({
          metricKey,
          recordedAt: new Date(`${entry.dateTime}T00:00:00Z`),
          utcOffsetMinutes: null,
          value,
          dataSource: 'fitbit-web-api',
        });
      }
    }
    return readings;
  },
};

const restingHeartRateStream: SyncStream = {
  key: 'heart',
  metrics: ['resting_heart_rate'],
  cadence: 'daily',
  maxWindowDays: 366,
  async fetch(ctx, window) {
    const { first, last } = daysOf(window);
    const answer = record(
      await ctx.request({
        method: 'GET',
        path: `/1/user/-/activities/heart/date/${first}/${last}.json`,
      }),
    );
    const series = answer['activities-heart'];
    const readings: SourceReading[] = [];
    for (const entry of Array.isArray(series) ? series.map(record) : []) {
      const value = num(record(entry.value).restingHeartRate);
      if (typeof entry.dateTime !== 'string' || value === null) continue;
      readings.push({
        metricKey: 'resting_heart_rate',
        recordedAt: new Date(`${entry.dateTime}T00:00:00Z`),
        utcOffsetMinutes: null,
        value,
        dataSource: 'fitbit-web-api',
      });
    }
    return readings;
  },
};

/** The user's IANA time zone (profile.json), once per run. */
async function timeZoneOf(ctx: FetchContext): Promise<string> {
  const memo = ctx.memo.get('fitbit-legacy:timezone');
  if (typeof memo === 'string') return memo;
  const profile = record(
    record(await ctx.request({ method: 'GET', path: '/1/user/-/profile.json' })).user,
  );
  const zone =
    typeof profile.timezone === 'string' && isTimeZone(profile.timezone) ? profile.timezone : 'UTC';
  ctx.memo.set('fitbit-legacy:timezone', zone);
  return zone;
}

const weightStream: SyncStream = {
  key: 'weight',
  metrics: ['weight', 'body_fat', 'bmi'],
  cadence: 'daily',
  // 31 days per call, less the day either side the request adds.
  maxWindowDays: 28,
  async fetch(ctx, window, wanted) {
    const zone = await timeZoneOf(ctx);
    // Local dates around the window; readings are kept by their instant.
    const first = utcDate(new Date(window.from.getTime() - DAY_MS));
    const last = utcDate(new Date(Math.min(window.to.getTime() + DAY_MS, ctx.now.getTime())));
    const answer = record(
      await ctx.request({
        method: 'GET',
        path: `/1/user/-/body/log/weight/date/${first}/${last}.json`,
      }),
    );
    const readings: SourceReading[] = [];
    for (const entry of Array.isArray(answer.weight) ? answer.weight.map(record) : []) {
      if (typeof entry.date !== 'string' || typeof entry.time !== 'string') continue;
      const instant = civilToInstant(zone, `${entry.date}T${entry.time}`);
      if (!instant || instant.at < window.from || instant.at >= window.to) continue;
      const common = {
        recordedAt: instant.at,
        utcOffsetMinutes: instant.offsetMinutes,
        dataSource: typeof entry.source === 'string' ? entry.source : 'fitbit-web-api',
      };
      for (const [metricKey, value] of [
        ['weight', num(entry.weight)],
        ['body_fat', num(entry.fat)],
        ['bmi', num(entry.bmi)],
      ] as const) {
        if (wanted.has(metricKey) && value !== null) readings.push({ ...common, metricKey, value });
      }
    }
    return readings;
  },
};

const sleepStream: SyncStream = {
  key: 'sleep',
  metrics: ['sleep_duration'],
  cadence: 'daily',
  // 100 days per call, less the day either side the request adds.
  maxWindowDays: 97,
  async fetch(ctx, window) {
    const zone = await timeZoneOf(ctx);
    // dateOfSleep is the local wake date: a day either side covers every session ending in the window.
    const first = utcDate(new Date(window.from.getTime() - DAY_MS));
    const last = utcDate(new Date(Math.min(window.to.getTime() + DAY_MS, ctx.now.getTime())));
    const answer = record(
      await ctx.request({ method: 'GET', path: `/1.2/user/-/sleep/date/${first}/${last}.json` }),
    );
    const readings: SourceReading[] = [];
    for (const entry of Array.isArray(answer.sleep) ? answer.sleep.map(record) : []) {
      if (typeof entry.startTime !== 'string' || typeof entry.endTime !== 'string') continue;
      const start = civilToInstant(zone, entry.startTime);
      const end = civilToInstant(zone, entry.endTime);
      const minutes = num(entry.minutesAsleep);
      if (!start || !end || minutes === null || end.at < window.from || end.at >= window.to)
        continue;
      readings.push({
        metricKey: 'sleep_duration',
        recordedAt: start.at,
        endAt: end.at,
        utcOffsetMinutes: start.offsetMinutes,
        value: minutes,
        valueJson: { mainSleep: entry.isMainSleep === true },
        dataSource: 'fitbit-web-api',
      });
    }
    return readings;
  },
};

export const FITBIT_LEGACY_STREAMS: readonly SyncStream[] = [
  activityStream,
  restingHeartRateStream,
  weightStream,
  sleepStream,
];

export const fitbitLegacySource: SyncSource = {
  upstream: 'fitbit-legacy',
  brand: 'Fitbit',
  streams: FITBIT_LEGACY_STREAMS,
  budgets: (connectionId) => [
    {
      scope: `fitbit-legacy:${connectionId}`,
      limit: FITBIT_LEGACY_CALLS_PER_HOUR,
      windowSeconds: 3600,
    },
  ],
};
