import {
  FITBIT_ACTIVITY_SERIES,
  FITBIT_DATA_MESSAGES,
  datesBetween,
  type FitbitActivitySeries,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitActivityIntradayResponseSchema,
  fitbitActivitySeriesResponseSchema,
  type FitbitActivityIntradayResponse,
  type FitbitActivitySeriesResponse,
  type FitbitIntradayDataset,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import { AppError } from '../../lib/errors';
import type { DailyRollupPoint } from '../google-health/google-health.client';
import type { StoredReading } from '../../modules/sync/readings.service';
import {
  bodyOf,
  instantsOfDailyReadings,
  list,
  localTime,
  num,
  offsetOf,
  record,
  round,
  secondsOf,
  type FitbitFamily,
} from './fitbit-family';

/**
 * Activity time series and intraday (provider-apis §1.5, §1.6) in the legacy shapes, from
 * stored readings or Google Health. Both paths go through `formatValue`, so a stored and a
 * live answer for the same day are the same string (decisions 0060, 0062).
 */

type Series = Extract<FitbitResourceRequest, { kind: 'activities-series' }>;
type Intraday = Extract<FitbitResourceRequest, { kind: 'activities-intraday' }>;

/** Google's activity levels behind Fitbit's minutes series (the sync reads them the same way). */
const LEVEL_OF: Partial<Record<FitbitActivitySeries, string>> = {
  minutesSedentary: 'SEDENTARY',
  minutesLightlyActive: 'LIGHTLY_ACTIVE',
  minutesFairlyActive: 'MODERATELY_ACTIVE',
  minutesVeryActive: 'VERY_ACTIVE',
};

const minutesOfLevel = (level: string) => (v: Record<string, unknown>) =>
  list(v.activityLevelRollupsByActivityLevelType)
    .filter((entry) => entry.activityLevelType === level)
    .reduce((sum, entry) => sum + Math.round(secondsOf(entry.totalDuration) / 60), 0);

/** The Google Health data type and rollup field per legacy resource, and its value in catalog units. */
export const GOOGLE_SERIES: Record<
  FitbitActivitySeries,
  { dataType: string; maxDays: 14 | 90; valueOf: (values: Record<string, unknown>) => number }
> = {
  steps: { dataType: 'steps', maxDays: 90, valueOf: (v) => Number(v.countSum ?? 0) },
  // millimetres → km, the catalog's (and metric Fitbit's) unit.
  distance: {
    dataType: 'distance',
    maxDays: 90,
    valueOf: (v) => Number(v.millimetersSum ?? 0) / 1_000_000,
  },
  floors: { dataType: 'floors', maxDays: 90, valueOf: (v) => Number(v.countSum ?? 0) },
  // total-calories rolls up at most 14 days at a time (facts §6).
  calories: { dataType: 'total-calories', maxDays: 14, valueOf: (v) => Number(v.kcalSum ?? 0) },
  minutesSedentary: {
    dataType: 'activity-level',
    maxDays: 90,
    valueOf: minutesOfLevel(LEVEL_OF.minutesSedentary!),
  },
  minutesLightlyActive: {
    dataType: 'activity-level',
    maxDays: 90,
    valueOf: minutesOfLevel(LEVEL_OF.minutesLightlyActive!),
  },
  minutesFairlyActive: {
    dataType: 'activity-level',
    maxDays: 90,
    valueOf: minutesOfLevel(LEVEL_OF.minutesFairlyActive!),
  },
  minutesVeryActive: {
    dataType: 'activity-level',
    maxDays: 90,
    valueOf: minutesOfLevel(LEVEL_OF.minutesVeryActive!),
  },
};

/** Fitbit's strings: distance a decimal (5 places, as Fitbit), the rest integers. */
export function formatValue(resource: FitbitActivitySeries, value: number): string {
  if (resource === 'distance') return String(round(value, 5));
  return String(Math.round(value));
}

const keyOf = (request: Series) =>
  `activities-${request.tracker ? 'tracker-' : ''}${request.resource}`;

function seriesOf(request: Series, values: Map<string, number>): FitbitActivitySeriesResponse {
  return {
    [keyOf(request)]: datesBetween(request.start, request.end).map((dateTime) => ({
      dateTime,
      // A day with nothing recorded is "0", as Fitbit answers it.
      value: formatValue(request.resource, values.get(dateTime) ?? 0),
    })),
  };
}

/** Daily readings (stored at the civil date's 00:00 UTC) as the series. */
export function seriesFromReadings(request: Series, readings: readonly StoredReading[]) {
  const metricKey = FITBIT_ACTIVITY_SERIES[request.resource];
  const values = new Map<string, number>();
  for (const reading of readings) {
    if (reading.metricKey !== metricKey || reading.value === null) continue;
    const date = reading.recordedAt.toISOString().slice(0, 10);
    values.set(date, (values.get(date) ?? 0) + reading.value);
  }
  return seriesOf(request, values);
}

/** Google Health dailyRollUp windows as the series. */
export function seriesFromRollups(request: Series, points: readonly DailyRollupPoint[]) {
  const { valueOf } = GOOGLE_SERIES[request.resource];
  return seriesOf(request, new Map(points.map((point) => [point.date, valueOf(point.values)])));
}

/** No data: an empty series or every day zero (decision 0060) — the same rule for every source. */
export function isEmptySeries(series: Record<string, Array<{ value: string }> | unknown>): boolean {
  return Object.values(series).every(
    (entries) =>
      !Array.isArray(entries) || entries.every((entry) => Number(record(entry).value) === 0),
  );
}

export const activitySeriesFamily: FitbitFamily<Series> = {
  stored(request) {
    const metricKey = FITBIT_ACTIVITY_SERIES[request.resource];
    return metricKey === null
      ? null
      : { metricKeys: [metricKey], ...instantsOfDailyReadings(request.start, request.end) };
  },
  fromStore: seriesFromReadings,
  async google(request, api) {
    const { dataType, maxDays } = GOOGLE_SERIES[request.resource];
    return seriesFromRollups(
      request,
      await api.dailyRollUp(dataType, request.start, request.end, maxDays),
    );
  },
  legacyPath: (request) =>
    `/1/user/-/activities/${request.tracker ? 'tracker/' : ''}${request.resource}/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitActivitySeriesResponseSchema.refine((body) => Object.keys(body).length > 0),
  isEmpty: (answer) => isEmptySeries(answer as FitbitActivitySeriesResponse),
};

/** Google list types behind activity intraday; floors and calories have no list (rollup only). */
const GOOGLE_INTRADAY = {
  steps: { jsonKey: 'steps', valueOf: (v: Record<string, unknown>) => num(v.count) ?? 0 },
  distance: {
    jsonKey: 'distance',
    valueOf: (v: Record<string, unknown>) => (num(v.millimeters) ?? 0) / 1_000_000,
  },
} as const;

/** Whether Google Health answers the intraday resource (decision 0062). */
export const googleHasIntraday = (resource: string): resource is keyof typeof GOOGLE_INTRADAY =>
  resource in GOOGLE_INTRADAY;

/**
 * One day at 1- or 15-minute detail from Google's 1-minute list points (steps, distance):
 * every bucket of the day (or window) listed, zero where nothing was recorded, as Fitbit.
 */
export const activityIntradayFamily: FitbitFamily<Intraday> = {
  async google(request, api) {
    // Google keeps floors and calories as rollups only: no minute points to list (decision 0062).
    if (!googleHasIntraday(request.resource))
      throw new AppError(400, FITBIT_DATA_MESSAGES.badRequest, { displayToUser: true });
    const { jsonKey, valueOf } = GOOGLE_INTRADAY[request.resource];
    const points = await api.listCivil(
      request.resource,
      'interval.civil_start_time',
      request.date,
      request.date,
    );
    const interval = request.detail === '15min' ? 15 : 1;
    const buckets = new Map<number, number>();
    for (const point of points) {
      const body = bodyOf(point, jsonKey);
      const time = record(body.interval);
      if (typeof time.startTime !== 'string') continue;
      const local = localTime(time.startTime, offsetOf(time.startUtcOffset));
      if (!local.startsWith(request.date)) continue;
      const minute = Number(local.slice(11, 13)) * 60 + Number(local.slice(14, 16));
      const key = Math.floor(minute / interval) * interval;
      buckets.set(key, (buckets.get(key) ?? 0) + valueOf(body));
    }
    const clock = (minute: number) =>
      `${String(Math.floor(minute / 60)).padStart(2, '0')}:${String(minute % 60).padStart(2, '0')}`;
    const dataset: FitbitIntradayDataset['dataset'] = [];
    let total = 0;
    for (let minute = 0; minute < 1440; minute += interval) {
      const value = buckets.get(minute) ?? 0;
      total += value;
      const time = clock(minute);
      if (request.time && (time < request.time.from || time > request.time.to)) continue;
      dataset.push({
        time: `${time}:00`,
        value: request.resource === 'distance' ? round(value, 5) : value,
      });
    }
    const key = `activities-${request.resource}`;
    const answer: FitbitActivityIntradayResponse = {
      [key]: [
        {
          dateTime: request.date,
          value:
            request.resource === 'distance' ? String(round(total, 5)) : String(Math.round(total)),
        },
      ],
      [`${key}-intraday`]: { dataset, datasetInterval: interval, datasetType: 'minute' },
    };
    return answer;
  },
  legacyPath: (request) =>
    `/1/user/-/activities/${request.resource}/date/${request.date}/1d/${request.detail}${request.time ? `/time/${request.time.from}/${request.time.to}` : ''}.json`,
  legacySchema: fitbitActivityIntradayResponseSchema,
  isEmpty: (answer) =>
    Object.entries(record(answer)).every(([key, value]) =>
      key.endsWith('-intraday')
        ? list(record(value).dataset).every((entry) => Number(entry.value) === 0)
        : true,
    ),
};
