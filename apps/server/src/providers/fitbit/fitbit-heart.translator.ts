import {
  datesBetween,
  type FitbitResourceRequest,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitHeartIntradayResponseSchema,
  fitbitHeartSeriesResponseSchema,
  type FitbitHeartIntradayResponse,
  type FitbitHeartSeriesResponse,
  type FitbitHeartZone,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import type { StoredReading } from '../../modules/sync/readings.service';
import {
  bodyOf,
  dateOfObject,
  instantsOfDailyReadings,
  instantsOfDays,
  list,
  localTime,
  num,
  offsetOf,
  record,
  secondsOf,
  settled,
  type FitbitFamily,
  type Json,
} from './fitbit-family';

/**
 * Heart rate (provider-apis §1.7) from Google Health: daily series with Fitbit's four zones
 * and the resting rate, and one day of samples at 1 s or per minute (decision 0062).
 */

type HeartSeries = Extract<FitbitResourceRequest, { kind: 'heart-series' }>;
type HeartIntraday = Extract<FitbitResourceRequest, { kind: 'heart-intraday' }>;

/** Fitbit's zone names, lowest first. */
export const FITBIT_ZONE_NAMES = ['Out of Range', 'Fat Burn', 'Cardio', 'Peak'] as const;

/**
 * Google's heart-rate-reserve zones as Fitbit's: Fat Burn is MODERATE, Cardio VIGOROUS, Peak
 * PEAK (the same bounds Google's active zone minutes count in); Out of Range is everything
 * below Fat Burn, from 30 bpm as Fitbit's. Minutes: fat-burn active zone minutes count 1 per
 * minute, cardio and peak 2; Out of Range is the rest of the day's worn, awake minutes
 * (activity level), as Google keeps no per-zone time of its own.
 */
function zonesOf(
  bounds: Json | undefined,
  azm: Json | undefined,
  levels: Json | undefined,
): FitbitHeartZone[] {
  if (!bounds) return [];
  const byType = new Map(
    list(bounds.heartRateZones).map((zone) => [String(zone.heartRateZoneType), zone]),
  );
  const min = (type: string) => num(byType.get(type)?.minBeatsPerMinute) ?? 0;
  const fatBurn = num(azm?.sumInFatBurnHeartZone) ?? 0;
  const cardio = Math.round((num(azm?.sumInCardioHeartZone) ?? 0) / 2);
  const peak = Math.round((num(azm?.sumInPeakHeartZone) ?? 0) / 2);
  const worn = list(levels?.activityLevelRollupsByActivityLevelType).reduce(
    (sum, entry) => sum + Math.round(secondsOf(entry.totalDuration) / 60),
    0,
  );
  return [
    {
      max: min('MODERATE'),
      min: 30,
      minutes: Math.max(0, worn - fatBurn - cardio - peak),
      name: FITBIT_ZONE_NAMES[0],
    },
    { max: min('VIGOROUS'), min: min('MODERATE'), minutes: fatBurn, name: FITBIT_ZONE_NAMES[1] },
    { max: min('PEAK'), min: min('VIGOROUS'), minutes: cardio, name: FITBIT_ZONE_NAMES[2] },
    {
      max: num(byType.get('PEAK')?.maxBeatsPerMinute) ?? 220,
      min: min('PEAK'),
      minutes: peak,
      name: FITBIT_ZONE_NAMES[3],
    },
  ];
}

const byDate = (points: Json[], jsonKey: string) => {
  const map = new Map<string, Json>();
  for (const point of points) {
    const body = bodyOf(point, jsonKey);
    const date = dateOfObject(body.date);
    if (date) map.set(date, body);
  }
  return map;
};

export const heartSeriesFamily: FitbitFamily<HeartSeries> = {
  async google(request, api) {
    const [resting, bounds, azm, levels] = await settled([
      api.listDaily('daily-resting-heart-rate', request.start, request.end),
      api.listDaily('daily-heart-rate-zones', request.start, request.end),
      api.dailyRollUp('active-zone-minutes', request.start, request.end, 90),
      api.dailyRollUp('activity-level', request.start, request.end, 90),
    ]);
    const restingByDate = byDate(resting, 'dailyRestingHeartRate');
    const boundsByDate = byDate(bounds, 'dailyHeartRateZones');
    const azmByDate = new Map(azm.map((point) => [point.date, point.values]));
    const levelsByDate = new Map(levels.map((point) => [point.date, point.values]));
    const answer: FitbitHeartSeriesResponse = {
      'activities-heart': datesBetween(request.start, request.end).map((dateTime) => {
        const rhr = num(restingByDate.get(dateTime)?.beatsPerMinute);
        return {
          dateTime,
          value: {
            customHeartRateZones: [],
            heartRateZones: zonesOf(
              boundsByDate.get(dateTime),
              azmByDate.get(dateTime),
              levelsByDate.get(dateTime),
            ),
            ...(rhr !== null && { restingHeartRate: rhr }),
          },
        };
      }),
    };
    return answer;
  },
  legacyPath: (request) => `/1/user/-/activities/heart/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitHeartSeriesResponseSchema,
  isEmpty: (answer) =>
    (answer as FitbitHeartSeriesResponse)['activities-heart'].every(
      (day) =>
        day.value.restingHeartRate === undefined &&
        day.value.heartRateZones.every((zone) => zone.minutes === 0),
    ),
};

/** `datasetInterval` of each detail level (provider-apis §1.6–§1.7). */
const INTERVAL = { '1sec': 1, '1min': 1, '5min': 5, '15min': 15 } as const;

/**
 * One heart-rate sample at local wall time, as milliseconds of the wall clock read as UTC
 * (the instant plus its offset): numbers, not wall-time strings, because a stored day of
 * 1-second samples is 86,400 of them (decision 0260).
 */
type Sample = { localMs: number; bpm: number };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const minuteOfDay = (time: string) => Number(time.slice(0, 2)) * 60 + Number(time.slice(3, 5));
const twoDigits = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * The day's dataset: the rounded mean of the samples of each second (`1sec`, datasetType
 * "second") or of each 1, 5 or 15 minutes (`1min`, `5min`, `15min`; datasetType "minute" with
 * datasetInterval 1, 5, 15, as the legacy API), by local time, within the request's time window
 * (`HH:mm` to `HH:mm`, both minutes whole).
 */
function intradayOf(
  request: HeartIntraday,
  samples: Sample[],
  restingHeartRate: number | null,
): FitbitHeartIntradayResponse {
  const dayStart = Date.parse(`${request.date}T00:00:00Z`);
  const fromMinute = request.time ? minuteOfDay(request.time.from) : 0;
  const toMinute = request.time ? minuteOfDay(request.time.to) : 24 * 60 - 1;
  const day: Sample[] = [];
  let sorted = true;
  for (const sample of samples) {
    const sinceMidnight = sample.localMs - dayStart;
    if (sinceMidnight < 0 || sinceMidnight >= DAY_MS) continue;
    const minute = Math.floor(sinceMidnight / MINUTE_MS);
    if (minute < fromMinute || minute > toMinute) continue;
    if (day.length > 0 && day[day.length - 1]!.localMs > sample.localMs) sorted = false;
    day.push(sample);
  }
  // Stored readings come in time order; a provider's answer may not. Stable, as before.
  if (!sorted) day.sort((a, b) => a.localMs - b.localMs);
  // One entry per second (`1sec`) or per 1, 5 or 15 minutes: the rounded mean of the samples
  // in it. The legacy dataset is keyed by wall time, so two samples of one second (two
  // sources, or sub-second instants) must not become two entries with the same time. The
  // samples are in time order, so each entry's samples are consecutive.
  const bucketMs = request.detail === '1sec' ? 1000 : INTERVAL[request.detail] * MINUTE_MS;
  const dataset: { time: string; value: number }[] = [];
  let key = -1;
  let sum = 0;
  let count = 0;
  const close = () => {
    if (count === 0) return;
    const seconds = (key * bucketMs) / 1000;
    dataset.push({
      time: `${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(Math.floor(seconds / 60) % 60)}:${twoDigits(seconds % 60)}`,
      value: Math.round(sum / count),
    });
  };
  for (const sample of day) {
    const sampleKey = Math.floor((sample.localMs - dayStart) / bucketMs);
    if (sampleKey !== key) {
      close();
      key = sampleKey;
      sum = 0;
      count = 0;
    }
    sum += sample.bpm;
    count += 1;
  }
  close();
  return {
    // Zones are left empty: neither the store nor a one-day Google read has them (decision 0062).
    'activities-heart': [
      {
        customHeartRateZones: [],
        dateTime: request.date,
        heartRateZones: [],
        value: String(restingHeartRate ?? 0),
      },
    ],
    'activities-heart-intraday': {
      dataset,
      datasetInterval: INTERVAL[request.detail],
      datasetType: request.detail === '1sec' ? 'second' : 'minute',
    },
  };
}

export const heartIntradayFamily: FitbitFamily<HeartIntraday> = {
  stored: (request) => ({
    metricKeys: ['heart_rate', 'resting_heart_rate'],
    ...instantsOfDays(request.date, request.date),
    coverage: { resting_heart_rate: instantsOfDailyReadings(request.date, request.date) },
    // fromStore keeps only the samples of the day's local date (decision 0255).
    localDays: { start: request.date, end: request.date },
  }),
  fromStore(request, readings: readonly StoredReading[]) {
    const daily = instantsOfDailyReadings(request.date, request.date).from.getTime();
    const resting = readings.find(
      (reading) =>
        reading.metricKey === 'resting_heart_rate' && reading.recordedAt.getTime() === daily,
    );
    const samples: Sample[] = [];
    for (const reading of readings) {
      if (reading.metricKey !== 'heart_rate' || reading.value === null) continue;
      samples.push({
        localMs: reading.recordedAt.getTime() + (reading.utcOffsetMinutes ?? 0) * MINUTE_MS,
        bpm: reading.value,
      });
    }
    return intradayOf(request, samples, resting?.value ?? null);
  },
  async google(request, api) {
    const [points, resting] = await settled([
      api.listCivil('heart-rate', 'sample_time.civil_time', request.date, request.date),
      api.listDaily('daily-resting-heart-rate', request.date, request.date),
    ]);
    const samples: Sample[] = [];
    for (const point of points) {
      const body = bodyOf(point, 'heartRate');
      const time = record(body.sampleTime);
      const bpm = num(body.beatsPerMinute);
      if (typeof time.physicalTime !== 'string' || bpm === null) continue;
      // Through the wall-time string, as before: an unreadable instant fails as it did.
      const local = localTime(time.physicalTime, offsetOf(time.utcOffset));
      samples.push({ localMs: Date.parse(`${local}Z`), bpm });
    }
    const rhr = num(bodyOf(resting[0] ?? {}, 'dailyRestingHeartRate').beatsPerMinute);
    return intradayOf(request, samples, rhr);
  },
  legacyPath: (request) =>
    `/1/user/-/activities/heart/date/${request.date}/1d/${request.detail}${request.time ? `/time/${request.time.from}/${request.time.to}` : ''}.json`,
  legacySchema: fitbitHeartIntradayResponseSchema,
  isEmpty: (answer) =>
    (answer as FitbitHeartIntradayResponse)['activities-heart-intraday'].dataset.length === 0,
};
