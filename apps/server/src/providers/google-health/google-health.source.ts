import {
  DAY_MS,
  num,
  offsetMinutes,
  utcDate,
  type FetchContext,
  type MirrorRange,
  type SourceReading,
  type SyncSource,
  type SyncStream,
} from '../../modules/sync/sources/types';

/**
 * The Google Health API (Fitbit's upstream). Daily summaries come from `dailyRollUp` (one
 * call per 90 days, 14 for total calories: the largest ranges Google allows) and the daily
 * list types; samples and sessions from `list` with the largest page (10,000; sleep 25).
 * Heart rate is stored at the finest resolution Google gives: every sample (every few
 * seconds while worn). Facts: shared/reference/google-health-api.md §5–§8.
 */

/** Google allows 300 requests per user per minute (facts §11). */
export const GOOGLE_HEALTH_CALLS_PER_MINUTE = 300;
export const GOOGLE_LIST_PAGE_SIZE = 10_000;
export const GOOGLE_SLEEP_PAGE_SIZE = 25;
/**
 * List calls have no documented range limit, and paging is what costs calls: sparse types
 * (weight, sleep) are read a year per window (one page of 10,000 or 25 after another);
 * heart rate a week per window (about 12 pages), so a window's rows fit in memory and
 * the checkpoint moves every few seconds of a backfill.
 */
const SPARSE_WINDOW_DAYS = 365;
const HEART_RATE_WINDOW_DAYS = 7;
/** Bound against a page-token loop. */
const MAX_PAGES = 10_000;

type Json = Record<string, unknown>;
const record = (value: unknown): Json =>
  value && typeof value === 'object' ? (value as Json) : {};

async function listAll(
  ctx: FetchContext,
  dataType: string,
  filter: string,
  pageSize: number,
): Promise<Json[]> {
  const points: Json[] = [];
  let pageToken: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const answer = record(
      await ctx.request({
        method: 'GET',
        path: `/users/me/dataTypes/${dataType}/dataPoints`,
        query: { filter, pageSize: String(pageSize), pageToken },
      }),
    );
    if (Array.isArray(answer.dataPoints)) points.push(...answer.dataPoints.map(record));
    pageToken =
      typeof answer.nextPageToken === 'string' && answer.nextPageToken !== ''
        ? answer.nextPageToken
        : undefined;
    if (!pageToken) break;
  }
  if (pageToken) ctx.markIncomplete(`${dataType}: more than ${MAX_PAGES} pages`);
  return points;
}

function civilDate(date: Date) {
  return { year: date.getUTCFullYear(), month: date.getUTCMonth() + 1, day: date.getUTCDate() };
}

/** The civil dates [first, last] a window covers: its UTC dates (daily readings live at 00:00 UTC). */
function dateRange(window: { from: Date; to: Date }) {
  const first = new Date(
    Date.UTC(window.from.getUTCFullYear(), window.from.getUTCMonth(), window.from.getUTCDate()),
  );
  const end = new Date(Math.ceil(window.to.getTime() / DAY_MS) * DAY_MS);
  return { first, end: end > first ? end : new Date(first.getTime() + DAY_MS) };
}

/**
 * The daily types' mirror (decision 0112): the answer holds every civil date asked for, and
 * their readings are kept at 00:00 UTC of the date, so the dates asked are a range of
 * `recorded_at`.
 */
function mirrorDates(window: { from: Date; to: Date }): MirrorRange {
  const { first, end } = dateRange(window);
  return { on: 'recorded_at', from: first, to: end };
}

function dateOf(value: unknown): Date | null {
  const date = record(value);
  const year = num(date.year);
  const month = num(date.month);
  const day = num(date.day);
  if (year === null || month === null || day === null) return null;
  return new Date(Date.UTC(year, month - 1, day));
}

function deviceOf(point: Json): string | null {
  const device = record(record(point.dataSource).device);
  return typeof device.displayName === 'string' ? device.displayName : null;
}

/** `dailyRollUp` of one type: one reading per civil day and metric. */
function dailyRollUpStream(
  key: string,
  rangeDays: 14 | 90,
  jsonKey: string,
  read: (value: Json) => Array<[metricKey: string, value: number | null]>,
  metrics: string[],
): SyncStream {
  return {
    key,
    metrics,
    cadence: 'daily',
    maxWindowDays: rangeDays,
    mirror: mirrorDates,
    async fetch(ctx, window, wanted) {
      const { first, end } = dateRange(window);
      const readings: SourceReading[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = record(
          await ctx.request({
            method: 'POST',
            path: `/users/me/dataTypes/${key}/dataPoints:dailyRollUp`,
            json: {
              range: { start: { date: civilDate(first) }, end: { date: civilDate(end) } },
              windowSizeDays: 1,
              pageSize: GOOGLE_LIST_PAGE_SIZE,
              ...(pageToken && { pageToken }),
            },
          }),
        );
        for (const point of Array.isArray(answer.rollupDataPoints)
          ? answer.rollupDataPoints.map(record)
          : []) {
          const day = dateOf(record(point.civilStartTime).date);
          if (!day) continue;
          for (const [metricKey, value] of read(record(point[jsonKey]))) {
            if (wanted.has(metricKey) && value !== null)
              readings.push({ metricKey, recordedAt: day, value });
          }
        }
        pageToken =
          typeof answer.nextPageToken === 'string' && answer.nextPageToken !== ''
            ? answer.nextPageToken
            : undefined;
        if (!pageToken) break;
      }
      if (pageToken) ctx.markIncomplete(`${key}: more than ${MAX_PAGES} pages`);
      return readings;
    },
  };
}

/** A daily list type (`…date` filter): one reading per civil day. */
function dailyListStream(
  key: string,
  filterName: string,
  metricKey: string,
  read: (value: Json) => number | null,
  /** What the reading keeps besides its value (e.g. SpO2 bounds), if anything. */
  detail?: (value: Json) => unknown,
): SyncStream {
  return {
    key,
    metrics: [metricKey],
    cadence: 'daily',
    maxWindowDays: 365,
    mirror: mirrorDates,
    async fetch(ctx, window) {
      const { first, end } = dateRange(window);
      const filter = `${filterName}.date >= "${utcDate(first)}" AND ${filterName}.date < "${utcDate(end)}"`;
      const readings: SourceReading[] = [];
      for (const point of await listAll(ctx, key, filter, GOOGLE_LIST_PAGE_SIZE)) {
        const jsonKey = Object.keys(point).find(
          (name) => name !== 'name' && name !== 'dataSource' && name !== 'dataPointName',
        );
        const body = record(jsonKey ? point[jsonKey] : undefined);
        const day = dateOf(body.date);
        const value = read(body);
        if (day && value !== null)
          readings.push({
            metricKey,
            recordedAt: day,
            value,
            dataSource: deviceOf(point),
            ...(detail && { valueJson: detail(body) }),
          });
      }
      return readings;
    },
  };
}

/** A sample list type (`sample_time.physical_time` filter). */
function sampleListStream(
  key: string,
  filterName: string,
  jsonKey: string,
  metricKey: string,
  cadence: 'intraday' | 'daily',
  read: (value: Json) => number | null,
): SyncStream {
  return {
    key,
    metrics: [metricKey],
    cadence,
    maxWindowDays: key === 'heart-rate' ? HEART_RATE_WINDOW_DAYS : SPARSE_WINDOW_DAYS,
    // The filter is on the sample instant, which is the stored recorded_at.
    mirror: (window) => ({ on: 'recorded_at', from: window.from, to: window.to }),
    async fetch(ctx, window) {
      const member = `${filterName}.sample_time.physical_time`;
      const filter = `${member} >= "${window.from.toISOString()}" AND ${member} < "${window.to.toISOString()}"`;
      const readings: SourceReading[] = [];
      for (const point of await listAll(ctx, key, filter, GOOGLE_LIST_PAGE_SIZE)) {
        const body = record(point[jsonKey]);
        const sample = record(body.sampleTime);
        const value = read(body);
        if (typeof sample.physicalTime !== 'string' || value === null) continue;
        readings.push({
          metricKey,
          recordedAt: new Date(sample.physicalTime),
          utcOffsetMinutes: offsetMinutes(sample.utcOffset as string | undefined),
          value,
          dataSource: deviceOf(point),
        });
      }
      return readings;
    },
  };
}

const sleepStream: SyncStream = {
  key: 'sleep',
  metrics: ['sleep_duration', 'sleep_stages'],
  cadence: 'daily',
  maxWindowDays: SPARSE_WINDOW_DAYS,
  // The filter is on the wake time, which is the stored end_at (recorded_at is the start).
  mirror: (window) => ({ on: 'end_at', from: window.from, to: window.to }),
  async fetch(ctx, window, wanted) {
    // Sleep filters on the wake time (facts §5): a session belongs to the window it ends in.
    const filter = `sleep.interval.end_time >= "${window.from.toISOString()}" AND sleep.interval.end_time < "${window.to.toISOString()}"`;
    const readings: SourceReading[] = [];
    for (const point of await listAll(ctx, 'sleep', filter, GOOGLE_SLEEP_PAGE_SIZE)) {
      const sleep = record(point.sleep);
      const interval = record(sleep.interval);
      if (typeof interval.startTime !== 'string' || typeof interval.endTime !== 'string') continue;
      const common = {
        recordedAt: new Date(interval.startTime),
        endAt: new Date(interval.endTime),
        utcOffsetMinutes: offsetMinutes(interval.startUtcOffset as string | undefined),
        dataSource: deviceOf(point),
      };
      const summary = record(sleep.summary);
      const metadata = record(sleep.metadata);
      if (wanted.has('sleep_duration')) {
        const minutes = num(summary.minutesAsleep);
        if (minutes !== null)
          readings.push({
            ...common,
            metricKey: 'sleep_duration',
            value: minutes,
            valueJson: { mainSleep: metadata.mainSleep === true },
          });
      }
      if (wanted.has('sleep_stages')) {
        const stages: Record<string, number> = {};
        for (const entry of Array.isArray(summary.stagesSummary)
          ? summary.stagesSummary.map(record)
          : []) {
          const type = typeof entry.type === 'string' ? entry.type.toLowerCase() : 'unknown';
          stages[type] = (stages[type] ?? 0) + (num(entry.minutes) ?? 0);
        }
        const session = storedSession(sleep);
        readings.push({
          ...common,
          metricKey: 'sleep_stages',
          value: num(summary.minutesInSleepPeriod),
          valueJson: {
            type: sleep.type ?? null,
            minutes: stages,
            ...(JSON.stringify(session).length <= SLEEP_SESSION_MAX_CHARS && { session }),
          },
        });
      }
    }
    return readings;
  },
};

/**
 * The session's Google `sleep` body as the `sleep_stages` reading keeps it, so the Fitbit data
 * call can rebuild the v1.2 log (levels included) with the live path's translation
 * (decision 0062, update 2026-11-27). Left out: the creation and update times (of the
 * session and of every stage: a third of the stage list) and the out-of-bed segments, which
 * no Fitbit field holds. Exports write value_json as it is, so it is kept small.
 */
function storedSession(sleep: Json): Json {
  const {
    createTime: _created,
    updateTime: _updated,
    outOfBedSegments: _outOfBed,
    ...session
  } = sleep;
  const segments = (value: unknown) =>
    Array.isArray(value)
      ? value.map(record).map(({ createTime: _c, updateTime: _u, ...segment }) => segment)
      : value;
  return {
    ...session,
    ...(session.stages !== undefined && { stages: segments(session.stages) }),
    ...(session.shortAwakenings !== undefined && {
      shortAwakenings: segments(session.shortAwakenings),
    }),
  };
}

/**
 * A session longer than this as JSON (about 140 stages; a night has 20–30, some 4 KB) is stored without
 * its body, and its range answered live: an export's value_json cell stays within a
 * spreadsheet cell's 32,767 characters, also as PostgreSQL's jsonb text (a space after every
 * colon and comma).
 */
export const SLEEP_SESSION_MAX_CHARS = 24_000;

const ACTIVITY_LEVELS: Record<string, string> = {
  LIGHTLY_ACTIVE: 'minutes_lightly_active',
  MODERATELY_ACTIVE: 'minutes_fairly_active',
  VERY_ACTIVE: 'minutes_very_active',
};

export const GOOGLE_HEALTH_STREAMS: readonly SyncStream[] = [
  dailyRollUpStream('steps', 90, 'steps', (v) => [['steps', num(v.countSum) ?? 0]], ['steps']),
  dailyRollUpStream(
    'distance',
    90,
    'distance',
    (v) => [['distance', (num(v.millimetersSum) ?? 0) / 1_000_000]],
    ['distance'],
  ),
  dailyRollUpStream('floors', 90, 'floors', (v) => [['floors', num(v.countSum) ?? 0]], ['floors']),
  dailyRollUpStream(
    'total-calories',
    14,
    'totalCalories',
    (v) => [['calories', num(v.kcalSum) ?? 0]],
    ['calories'],
  ),
  dailyRollUpStream(
    'activity-level',
    90,
    'activityLevel',
    (v) => {
      const totals = new Map(Object.values(ACTIVITY_LEVELS).map((key) => [key, 0]));
      for (const entry of Array.isArray(v.activityLevelRollupsByActivityLevelType)
        ? v.activityLevelRollupsByActivityLevelType.map(record)
        : []) {
        const key = ACTIVITY_LEVELS[String(entry.activityLevelType)];
        const seconds = Number.parseFloat(String(entry.totalDuration ?? '0').replace(/s$/, ''));
        if (key && Number.isFinite(seconds))
          totals.set(key, (totals.get(key) ?? 0) + Math.round(seconds / 60));
      }
      return [...totals];
    },
    Object.values(ACTIVITY_LEVELS),
  ),
  sampleListStream('heart-rate', 'heart_rate', 'heartRate', 'heart_rate', 'intraday', (v) =>
    num(v.beatsPerMinute),
  ),
  dailyListStream(
    'daily-resting-heart-rate',
    'daily_resting_heart_rate',
    'resting_heart_rate',
    (v) => num(v.beatsPerMinute),
  ),
  // The night's bounds too: the Fitbit data call answers spo2/date/… (avg, min, max) from them.
  dailyListStream(
    'daily-oxygen-saturation',
    'daily_oxygen_saturation',
    'spo2',
    (v) => num(v.averagePercentage),
    (v) => ({ min: num(v.lowerBoundPercentage), max: num(v.upperBoundPercentage) }),
  ),
  dailyListStream('daily-respiratory-rate', 'daily_respiratory_rate', 'breathing_rate', (v) =>
    num(v.breathsPerMinute),
  ),
  dailyListStream('daily-vo2-max', 'daily_vo2_max', 'vo2_max', (v) => num(v.vo2Max)),
  sleepStream,
  sampleListStream('weight', 'weight', 'weight', 'weight', 'daily', (v) => {
    const grams = num(v.weightGrams);
    return grams === null ? null : grams / 1000;
  }),
  sampleListStream('body-fat', 'body_fat', 'bodyFat', 'body_fat', 'daily', (v) =>
    num(v.percentage),
  ),
];

export const googleHealthSource: SyncSource = {
  upstream: 'google-health',
  brand: 'Fitbit',
  streams: GOOGLE_HEALTH_STREAMS,
  budgets: (connectionId) => [
    {
      scope: `connection:${connectionId}`,
      limit: GOOGLE_HEALTH_CALLS_PER_MINUTE,
      windowSeconds: 60,
    },
  ],
};
