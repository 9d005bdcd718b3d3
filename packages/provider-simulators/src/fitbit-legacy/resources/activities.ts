import type { ExerciseKind } from '../../common/accounts';
import {
  MINUTE_MS,
  addDays,
  dayNumberOf,
  formatOffset,
  isValidDate,
  localDayUtcRange,
} from '../../common/civil-time';
import {
  FLOOR_HEIGHT_MM,
  type DaySummary,
  type ExerciseSession,
} from '../../common/wearable-model';
import { datesBetween, parseClock, parseDate, parseRange, type Period } from '../dates';
import { fitbitErrors } from '../errors';
import { distanceOf, elevationOf, round } from '../units';
import {
  type FitbitCaller,
  type FitbitResource,
  type ResourceResult,
  bad,
  clockOf,
  localTimestamp,
  windowMinutes,
} from './context';

/**
 * Activity resources (facts §1.5, §1.6, §1.13): time series by period or range (values are
 * strings), intraday at 1/5/15 minutes (values are numbers), the daily summary, the activity
 * log list and Active Zone Minutes.
 */

export const TIME_SERIES_RESOURCES = [
  'calories',
  'caloriesBMR',
  'steps',
  'distance',
  'floors',
  'elevation',
  'minutesSedentary',
  'minutesLightlyActive',
  'minutesFairlyActive',
  'minutesVeryActive',
  'activityCalories',
] as const;
type TimeSeriesResource = (typeof TIME_SERIES_RESOURCES)[number];

const INTRADAY_RESOURCES = ['calories', 'distance', 'elevation', 'floors', 'steps'] as const;
type IntradayResource = (typeof INTRADAY_RESOURCES)[number];

const ACTIVITY_PERIODS: Period[] = ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y', 'max'];
const SEGMENT = '([^/]+)';
const RESOURCE = `(tracker/)?(${TIME_SERIES_RESOURCES.join('|')})`;
const INTRADAY = `(tracker/)?(${INTRADAY_RESOURCES.join('|')})`;
const TIME = '(?:/time/(\\d{2}:\\d{2})/(\\d{2}:\\d{2}))?';

export const activityResources: FitbitResource[] = [
  {
    version: '1',
    pattern: /^activities\/date\/([^/]+)\.json$/,
    scope: 'activity',
    handle: (caller, match) => dailySummary(caller, match[1] ?? ''),
  },
  {
    version: '1',
    pattern: /^activities\/list\.json$/,
    scope: 'activity',
    handle: (caller) => activityLogList(caller),
  },
  {
    version: '1',
    pattern: new RegExp(`^activities/active-zone-minutes/date/${SEGMENT}/${SEGMENT}\\.json$`),
    scope: 'activity',
    handle: (caller, match) => activeZoneMinutes(caller, match[1] ?? '', match[2] ?? ''),
  },
  {
    // Intraday for one day: /date/{date}/1d/{detail}[/time/{start}/{end}].json
    version: '1',
    pattern: new RegExp(
      `^activities/${INTRADAY}/date/${SEGMENT}/1d/(1min|5min|15min)${TIME}\\.json$`,
    ),
    scope: 'activity',
    handle: (caller, match) =>
      intraday(
        caller,
        match[2] as IntradayResource,
        Boolean(match[1]),
        match[3] ?? '',
        match[3] ?? '',
        match[4] ?? '',
        match[5],
        match[6],
      ),
  },
  {
    // Intraday for a range of at most 24 hours: /date/{start}/{end}/{detail}[/time/…].json
    version: '1',
    pattern: new RegExp(
      `^activities/${INTRADAY}/date/${SEGMENT}/${SEGMENT}/(1min|5min|15min)${TIME}\\.json$`,
    ),
    scope: 'activity',
    handle: (caller, match) =>
      intraday(
        caller,
        match[2] as IntradayResource,
        Boolean(match[1]),
        match[3] ?? '',
        match[4] ?? '',
        match[5] ?? '',
        match[6],
        match[7],
      ),
  },
  {
    version: '1',
    pattern: new RegExp(`^activities/${RESOURCE}/date/${SEGMENT}/${SEGMENT}\\.json$`),
    scope: 'activity',
    handle: (caller, match) =>
      timeSeries(
        caller,
        match[2] as TimeSeriesResource,
        Boolean(match[1]),
        match[3] ?? '',
        match[4] ?? '',
      ),
  },
];

function timeSeries(
  caller: FitbitCaller,
  resource: TimeSeriesResource,
  tracker: boolean,
  first: string,
  second: string,
): ResourceResult {
  const range = parseRange(first, second, {
    today: caller.today,
    memberSince: caller.account.memberSince,
    periods: ACTIVITY_PERIODS,
    maxDays: 1095,
  });
  if ('error' in range) return bad(range.error);
  const key = `activities-${tracker ? 'tracker-' : ''}${resource}`;
  return {
    body: {
      [key]: datesBetween(range.start, range.end).map((date) => ({
        dateTime: date,
        value: seriesValue(resource, summaryOf(caller, date), caller),
      })),
    },
  };
}

/** Daily totals as Fitbit's strings (distance km/mi decimal, the rest integers). */
function seriesValue(
  resource: TimeSeriesResource,
  summary: DaySummary,
  caller: FitbitCaller,
): string {
  switch (resource) {
    case 'steps':
      return String(summary.steps);
    case 'distance':
      return String(distanceOf(summary.distanceMm, caller.units));
    case 'floors':
      return String(summary.floors);
    case 'elevation':
      return String(elevationOf(summary.elevationMm, caller.units));
    case 'calories':
      return String(Math.round(summary.caloriesOut));
    case 'caloriesBMR':
      return String(Math.round(summary.caloriesBmr));
    case 'activityCalories':
      return String(Math.round(summary.activityCalories));
    case 'minutesSedentary':
      return String(summary.minutesSedentary);
    case 'minutesLightlyActive':
      return String(summary.minutesLightlyActive);
    case 'minutesFairlyActive':
      return String(summary.minutesFairlyActive);
    case 'minutesVeryActive':
      return String(summary.minutesVeryActive);
  }
}

function intraday(
  caller: FitbitCaller,
  resource: IntradayResource,
  tracker: boolean,
  first: string,
  second: string,
  detail: string,
  startTime: string | undefined,
  endTime: string | undefined,
): ResourceResult {
  const start = parseDate(first, caller.today);
  if ('error' in start) return bad(start.error);
  const end = parseDate(second, caller.today, 'endDate');
  if ('error' in end) return bad(end.error);
  const window = parseTimeWindow(start.date, end.date, startTime, endTime);
  if ('error' in window) return window.error;
  const interval = detail === '15min' ? 15 : detail === '5min' ? 5 : 1;
  const minutes = windowMinutes(caller, start.date, end.date, window.startMinute, window.endMinute);
  const buckets = new Map<
    number,
    { label: number; value: number; mets: number; level: number; count: number }
  >();
  for (const { date, minute, label } of minutes) {
    const series = caller.model.day(date);
    const key = Math.floor(label / (interval * MINUTE_MS));
    let bucket = buckets.get(key);
    if (!bucket)
      buckets.set(
        key,
        (bucket = { label: key * interval * MINUTE_MS, value: 0, mets: 0, level: 0, count: 0 }),
      );
    const value =
      resource === 'steps'
        ? (series.steps[minute] ?? 0)
        : resource === 'distance'
          ? distanceOf(series.distanceMm[minute] ?? 0, caller.units)
          : resource === 'floors'
            ? (series.floors[minute] ?? 0)
            : resource === 'elevation'
              ? elevationOf((series.floors[minute] ?? 0) * FLOOR_HEIGHT_MM, caller.units)
              : (series.kcal[minute] ?? 0);
    bucket.value += value;
    bucket.count++;
    bucket.level = Math.max(bucket.level, series.worn[minute] ? (series.level[minute] ?? 0) : 0);
    bucket.mets +=
      ((series.kcal[minute] ?? 0) / ((caller.account.baselineWeightKg * 3.5) / 200)) * 10;
  }
  const dataset = [...buckets.values()].map((bucket) => {
    const time = clockOf(bucket.label);
    if (resource === 'calories') {
      return {
        level: bucket.level,
        mets: Math.round(bucket.mets / bucket.count),
        time,
        value: round(bucket.value, 5),
      };
    }
    const value =
      resource === 'distance' || resource === 'elevation' ? round(bucket.value, 5) : bucket.value;
    return { time, value };
  });
  const key = `activities-${tracker ? 'tracker-' : ''}${resource}`;
  const seriesResource: TimeSeriesResource = resource;
  return {
    body: {
      [key]: datesBetween(start.date, end.date).map((date) => ({
        dateTime: date,
        value: seriesValue(seriesResource, summaryOf(caller, date), caller),
      })),
      [`${key}-intraday`]: { dataset, datasetInterval: interval, datasetType: 'minute' },
    },
  };
}

/** Start/end minute of an intraday window; a range may span at most 24 hours. */
export function parseTimeWindow(
  startDate: string,
  endDate: string,
  startTime: string | undefined,
  endTime: string | undefined,
): { startMinute: number; endMinute: number } | { error: ResourceResult } {
  const startMinute = startTime === undefined ? 0 : parseClock(startTime);
  const endMinute = endTime === undefined ? 1439 : parseClock(endTime);
  if (startMinute === undefined)
    return { error: bad(fitbitErrors.validation('startTime', `Invalid time: ${startTime}`)) };
  if (endMinute === undefined)
    return { error: bad(fitbitErrors.validation('endTime', `Invalid time: ${endTime}`)) };
  const span = (dayNumberOf(endDate) - dayNumberOf(startDate)) * 1440 + endMinute - startMinute;
  if (span < 0)
    return {
      error: bad(
        fitbitErrors.validation(
          'endDate',
          'The end of the time range must not be before its start.',
        ),
      ),
    };
  if (startDate !== endDate && span > 1440) {
    return {
      error: bad(
        fitbitErrors.validation(
          'endDate',
          'Intraday time series are limited to a range of 24 hours.',
        ),
      ),
    };
  }
  return { startMinute, endMinute };
}

function dailySummary(caller: FitbitCaller, text: string): ResourceResult {
  const parsed = parseDate(text, caller.today);
  if ('error' in parsed) return bad(parsed.error);
  const date = parsed.date;
  const summary = summaryOf(caller, date);
  const km = (mm: number) => distanceOf(mm, caller.units);
  const levelDistance = levelDistances(caller, date);
  const rhr = restingHeartRateOf(caller, date);
  const exercises = visibleExercises(caller, date);
  return {
    body: {
      activities: exercises.map((exercise) => summaryActivity(caller, date, exercise)),
      goals: {
        activeMinutes: 30,
        caloriesOut: 2200,
        distance: km(8_050_000),
        floors: 10,
        steps: 10_000,
      },
      summary: {
        activeScore: -1,
        activityCalories: Math.round(summary.activityCalories),
        caloriesBMR: Math.round(summary.caloriesBmr),
        caloriesOut: Math.round(summary.caloriesOut),
        distances: [
          { activity: 'total', distance: km(summary.distanceMm) },
          { activity: 'tracker', distance: km(summary.distanceMm) },
          { activity: 'loggedActivities', distance: 0 },
          { activity: 'veryActive', distance: km(levelDistance[3]) },
          { activity: 'moderatelyActive', distance: km(levelDistance[2]) },
          { activity: 'lightlyActive', distance: km(levelDistance[1]) },
          { activity: 'sedentaryActive', distance: km(levelDistance[0]) },
        ],
        elevation: elevationOf(summary.elevationMm, caller.units),
        fairlyActiveMinutes: summary.minutesFairlyActive,
        floors: summary.floors,
        heartRateZones: legacyZones(summary),
        lightlyActiveMinutes: summary.minutesLightlyActive,
        marginalCalories: Math.round(summary.activityCalories * 0.6),
        ...(rhr !== null && { restingHeartRate: rhr }),
        sedentaryMinutes: summary.minutesSedentary,
        steps: summary.steps,
        veryActiveMinutes: summary.minutesVeryActive,
      },
    },
  };
}

function activeZoneMinutes(caller: FitbitCaller, first: string, second: string): ResourceResult {
  const range = parseRange(first, second, {
    today: caller.today,
    memberSince: caller.account.memberSince,
    periods: ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y'],
    maxDays: 1095,
  });
  if ('error' in range) return bad(range.error);
  const entries = datesBetween(range.start, range.end).flatMap((date) => {
    const azm = summaryOf(caller, date).azm;
    const total = azm.fatBurn + 2 * azm.cardio + 2 * azm.peak;
    if (!total) return [];
    return [
      {
        dateTime: date,
        value: {
          activeZoneMinutes: total,
          ...(azm.fatBurn && { fatBurnActiveZoneMinutes: azm.fatBurn }),
          ...(azm.cardio && { cardioActiveZoneMinutes: 2 * azm.cardio }),
          ...(azm.peak && { peakActiveZoneMinutes: 2 * azm.peak }),
        },
      },
    ];
  });
  return { body: { 'activities-active-zone-minutes': entries } };
}

/** /activities/list.json: beforeDate (desc) or afterDate (asc), limit ≤ 100, offset links. */
function activityLogList(caller: FitbitCaller): ResourceResult {
  const list = parseListQuery(caller, 'activities/list.json', '1');
  if ('failure' in list) return list.failure;
  const logs: Array<{ date: string; exercise: ExerciseSession }> = [];
  const wanted = list.offset + list.limit + 1;
  const member = dayNumberOf(caller.account.memberSince);
  const today = dayNumberOf(caller.today);
  if (list.sort === 'asc') {
    for (
      let day = Math.max(member, dayNumberOf(list.bound.slice(0, 10)));
      day <= today && logs.length < wanted;
      day++
    ) {
      const date = addDays('1970-01-01', day);
      for (const exercise of visibleExercises(caller, date)) {
        if (exercise.startCivil > list.boundMs) logs.push({ date, exercise });
      }
    }
  } else {
    for (
      let day = Math.min(today, dayNumberOf(list.bound.slice(0, 10)));
      day >= member && logs.length < wanted;
      day--
    ) {
      const date = addDays('1970-01-01', day);
      for (const exercise of [...visibleExercises(caller, date)].reverse()) {
        if (exercise.startCivil < list.boundMs) logs.push({ date, exercise });
      }
    }
  }
  const page = logs.slice(list.offset, list.offset + list.limit);
  return {
    body: {
      activities: page.map(({ date, exercise }) => activityLog(caller, date, exercise)),
      pagination: list.pagination(logs.length > list.offset + list.limit),
    },
  };
}

/** Shared parsing of Fitbit's list endpoints (activities and sleep). */
export function parseListQuery(caller: FitbitCaller, path: string, version: '1' | '1.2') {
  const q = caller.query;
  const fail = (error: Parameters<typeof bad>[0]) => ({ failure: bad(error) });
  const before = q.beforeDate;
  const after = q.afterDate;
  if ((before === undefined) === (after === undefined)) {
    return fail(
      fitbitErrors.validation(
        'beforeDate',
        'Exactly one of beforeDate or afterDate must be specified.',
      ),
    );
  }
  const bound = (before ?? after) as string;
  const boundMs = parseListDate(bound);
  if (boundMs === undefined)
    return fail(
      fitbitErrors.validation(before ? 'beforeDate' : 'afterDate', `Invalid date:${bound}`),
    );
  const sort = q.sort;
  const expected = before ? 'desc' : 'asc';
  if (sort !== expected) {
    return fail(
      fitbitErrors.validation(
        'sort',
        `The sort parameter must be '${expected}' when ${before ? 'beforeDate' : 'afterDate'} is used.`,
      ),
    );
  }
  const limit = Number(q.limit);
  if (q.limit === undefined || !Number.isInteger(limit) || limit < 1 || limit > 100) {
    return fail(
      fitbitErrors.validation(
        'limit',
        'The limit parameter is required and must be between 1 and 100.',
      ),
    );
  }
  const offset = q.offset === undefined ? 0 : Number(q.offset);
  if (!Number.isInteger(offset) || offset < 0)
    return fail(fitbitErrors.validation('offset', 'Invalid offset.'));
  const link = (newOffset: number) => {
    const params = new URLSearchParams({
      offset: String(newOffset),
      limit: String(limit),
      sort: expected,
    });
    params.set(before ? 'beforeDate' : 'afterDate', bound);
    return `${caller.baseUrl}/${version}/user/-/${path}?${params.toString()}`;
  };
  return {
    bound,
    boundMs,
    sort: expected,
    limit,
    offset,
    pagination: (more: boolean) => ({
      ...(before ? { beforeDate: bound } : { afterDate: bound }),
      limit,
      next: more ? link(offset + limit) : '',
      offset,
      previous: offset > 0 ? link(Math.max(0, offset - limit)) : '',
      sort: expected,
    }),
  };
}

/** `yyyy-MM-dd` or `yyyy-MM-ddTHH:mm:ss` (local) → civil ms. */
function parseListDate(text: string): number | undefined {
  const match = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2}):(\d{2}))?$/.exec(text);
  if (!match || !isValidDate(match[1] ?? '')) return undefined;
  const [, date = '', h = '0', m = '0', s = '0'] = match;
  return Date.parse(`${date}T00:00:00Z`) + (Number(h) * 3600 + Number(m) * 60 + Number(s)) * 1000;
}

export const ACTIVITY_TYPES: Record<ExerciseKind, { id: number; name: string }> = {
  RUN: { id: 90009, name: 'Run' },
  WALK: { id: 90013, name: 'Walk' },
  BIKE: { id: 90001, name: 'Outdoor Bike' },
  WEIGHTS: { id: 2030, name: 'Weights' },
  YOGA: { id: 52001, name: 'Yoga' },
};

function exerciseStats(caller: FitbitCaller, date: string, exercise: ExerciseSession) {
  const series = caller.model.day(date);
  const plan = caller.model.plan(date);
  const from = Math.round((exercise.startCivil - plan.civilStart) / MINUTE_MS);
  const to = Math.round((exercise.endCivil - plan.civilStart) / MINUTE_MS);
  const stats = {
    steps: 0,
    distanceMm: 0,
    kcal: 0,
    hrSum: 0,
    hrCount: 0,
    levels: [0, 0, 0, 0],
    zones: [0, 0, 0, 0],
  };
  for (let m = from; m < to; m++) {
    stats.steps += series.steps[m] ?? 0;
    stats.distanceMm += series.distanceMm[m] ?? 0;
    stats.kcal += series.kcal[m] ?? 0;
    const bpm = series.heartRate[m] ?? 0;
    if (bpm) {
      stats.hrSum += bpm;
      stats.hrCount++;
    }
    const level = series.level[m] ?? 0;
    stats.levels[level] = (stats.levels[level] ?? 0) + 1;
    const zone = series.azmZone[m] ?? 0;
    stats.zones[zone] = (stats.zones[zone] ?? 0) + 1;
  }
  if (exercise.kind === 'BIKE')
    stats.distanceMm += Math.round(((exercise.endCivil - exercise.startCivil) / 1000) * 6200);
  return stats;
}

function activityLog(caller: FitbitCaller, date: string, exercise: ExerciseSession) {
  const stats = exerciseStats(caller, date, exercise);
  const duration = exercise.endCivil - exercise.startCivil;
  const offsetSeconds = (exercise.startCivil - exercise.startUtc) / 1000;
  const startTime = `${localTimestamp(exercise.startCivil)}${formatOffset(offsetSeconds)}`;
  const type = ACTIVITY_TYPES[exercise.kind];
  const moving = exercise.kind === 'RUN' || exercise.kind === 'WALK' || exercise.kind === 'BIKE';
  const azm = stats.zones[1]! + 2 * (stats.zones[2]! + stats.zones[3]!);
  return {
    activeDuration: duration,
    activeZoneMinutes: {
      minutesInHeartRateZones: [
        {
          minuteMultiplier: 0,
          minutes: stats.zones[0],
          order: 0,
          type: 'OUT_OF_ZONE',
          zoneName: 'Out of Range',
        },
        {
          minuteMultiplier: 1,
          minutes: stats.zones[1],
          order: 1,
          type: 'FAT_BURN',
          zoneName: 'Fat Burn',
        },
        {
          minuteMultiplier: 2,
          minutes: stats.zones[2],
          order: 2,
          type: 'CARDIO',
          zoneName: 'Cardio',
        },
        { minuteMultiplier: 2, minutes: stats.zones[3], order: 3, type: 'PEAK', zoneName: 'Peak' },
      ],
      totalMinutes: azm,
    },
    activityLevel: [
      { minutes: stats.levels[0], name: 'sedentary' },
      { minutes: stats.levels[1], name: 'lightly' },
      { minutes: stats.levels[2], name: 'fairly' },
      { minutes: stats.levels[3], name: 'very' },
    ],
    activityName: type.name,
    activityTypeId: type.id,
    ...(stats.hrCount && { averageHeartRate: Math.round(stats.hrSum / stats.hrCount) }),
    calories: Math.round(stats.kcal),
    ...(moving && {
      distance: distanceOf(stats.distanceMm, caller.units),
      distanceUnit: caller.units === 'US' ? 'Mile' : 'Kilometer',
    }),
    duration,
    hasActiveZoneMinutes: true,
    lastModified: `${new Date(exercise.endUtc + 6 * MINUTE_MS).toISOString().slice(0, 19)}.000Z`,
    logId: exercise.logId,
    logType: 'auto_detected',
    originalDuration: duration,
    originalStartTime: startTime,
    startTime,
    steps: stats.steps,
  };
}

function summaryActivity(caller: FitbitCaller, date: string, exercise: ExerciseSession) {
  const stats = exerciseStats(caller, date, exercise);
  const type = ACTIVITY_TYPES[exercise.kind];
  return {
    activityId: type.id,
    activityParentId: type.id,
    activityParentName: type.name,
    calories: Math.round(stats.kcal),
    description: '',
    distance: distanceOf(stats.distanceMm, caller.units),
    duration: exercise.endCivil - exercise.startCivil,
    hasActiveZoneMinutes: true,
    hasStartTime: true,
    isFavorite: false,
    lastModified: `${new Date(exercise.endUtc + 6 * MINUTE_MS).toISOString().slice(0, 19)}.000Z`,
    logId: exercise.logId,
    name: type.name,
    startDate: date,
    startTime: localTimestamp(exercise.startCivil).slice(11, 16),
    steps: stats.steps,
  };
}

/** Exercise sessions of a day that have synced. */
export function visibleExercises(caller: FitbitCaller, date: string): ExerciseSession[] {
  return caller.model
    .plan(date)
    .exercises.filter((exercise) => exercise.endUtc <= caller.trackerCutoff);
}

/** Day totals up to the last sync (nothing after "now"). */
export function summaryOf(caller: FitbitCaller, date: string): DaySummary {
  const [dayStart] = localDayUtcRange(caller.account.timeZone, date);
  if (dayStart >= caller.nowMs) return caller.model.summary(date, dayStart);
  return caller.model.summary(date, caller.trackerCutoff);
}

/** Resting heart rate once the day's morning has synced (like Fitbit computes it). */
export function restingHeartRateOf(caller: FitbitCaller, date: string): number | null {
  const [dayStart] = localDayUtcRange(caller.account.timeZone, date);
  if (dayStart + 6 * 3_600_000 > caller.trackerCutoff) return null;
  return caller.model.restingHeartRate(date);
}

export function legacyZones(summary: DaySummary) {
  return summary.heartZones.map((zone) => ({
    caloriesOut: round(zone.caloriesOut, 5),
    max: zone.max,
    min: zone.min,
    minutes: zone.minutes,
    name: zone.name,
  }));
}

function levelDistances(caller: FitbitCaller, date: string): [number, number, number, number] {
  const series = caller.model.day(date);
  const out: [number, number, number, number] = [0, 0, 0, 0];
  for (let m = 0; m < series.length; m++) {
    const utc = series.minuteUtc[m] ?? Number.NaN;
    if (!series.worn[m] || Number.isNaN(utc) || utc >= caller.trackerCutoff) continue;
    const level = (series.level[m] ?? 0) as 0 | 1 | 2 | 3;
    out[level] += series.distanceMm[m] ?? 0;
  }
  return out;
}
