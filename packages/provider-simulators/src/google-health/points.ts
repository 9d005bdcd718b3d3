import { ageOn, type ExerciseKind, type SimulatedAccount } from '../common/accounts';
import {
  DAY_MS,
  MINUTE_MS,
  civilMsOfDate,
  dayNumberOf,
  localDayUtcRange,
  utcOffsetSeconds,
} from '../common/civil-time';
import { createRng } from '../common/prng';
import {
  FLOOR_HEIGHT_MM,
  type FoodLog,
  type SleepSession,
  type WearableModel,
} from '../common/wearable-model';
import type { DataTypeSpec } from './catalog';
import type { FilterablePoint } from './filters';
import {
  dateObject,
  duration,
  int64,
  interval,
  omitDefaults,
  sampleTime,
  timestampMicros,
} from './json';

/**
 * Turns the shared wearable model into Google Health data points, one local day at a time.
 * Points come back in ascending start order; the list endpoint reverses and pages them.
 */

export interface PointContext {
  account: SimulatedAccount;
  model: WearableModel;
  /** Tracker data exists only before this instant (sync lag, battery empty). */
  trackerCutoff: number;
  /** Manual logs and scale readings exist up to now. */
  nowMs: number;
  /** The account's edits of generated points (test hook, data-edits.ts). */
  edit?: (dataType: string, points: GeneratedPoint[]) => GeneratedPoint[];
}

export interface GeneratedPoint extends FilterablePoint {
  /** Start time in UTC ms: the list order and the page cursor. */
  sortMs: number;
  /** Data point id for identifiable types (the last segment of `name`). */
  id?: string;
  dataSource: Record<string, unknown>;
  /** The union value, built only for points that are returned. */
  value(): Record<string, unknown>;
}

export function pointsForDay(
  spec: DataTypeSpec,
  ctx: PointContext,
  date: string,
): GeneratedPoint[] {
  const generator = GENERATORS[spec.id];
  if (!spec.generated || !generator) return [];
  const points = generator(ctx, date);
  return ctx.edit ? ctx.edit(spec.id, points) : points;
}

/** Per-minute rollup atoms: a worn minute of the day with its UTC start and values. */
export function forEachWornMinute(
  ctx: PointContext,
  date: string,
  visit: (minute: number, utc: number, civil: number) => void,
): void {
  const series = ctx.model.day(date);
  for (let m = 0; m < series.length; m++) {
    if (!series.worn[m]) continue;
    const utc = series.minuteUtc[m] ?? Number.NaN;
    if (Number.isNaN(utc) || utc + MINUTE_MS > ctx.trackerCutoff) continue;
    visit(m, utc, utc + (series.minuteOffset[m] ?? 0) * 1000);
  }
}

export const EXERCISE_TYPES: Record<ExerciseKind, { type: string; name: string }> = {
  RUN: { type: 'RUNNING', name: 'Run' },
  WALK: { type: 'WALKING', name: 'Walk' },
  BIKE: { type: 'BIKING', name: 'Bike' },
  WEIGHTS: { type: 'WEIGHTLIFTING', name: 'Weights' },
  YOGA: { type: 'YOGA', name: 'Yoga' },
};

export const MEAL_TYPES: Record<FoodLog['mealTypeId'], string> = {
  1: 'BREAKFAST',
  2: 'BEFORE_LUNCH',
  3: 'LUNCH',
  4: 'BEFORE_DINNER',
  5: 'DINNER',
  7: 'ANYTIME',
};

// ---------------------------------------------------------------------------------------------

type Generator = (ctx: PointContext, date: string) => GeneratedPoint[];

const ZONES = ['', 'FAT_BURN', 'CARDIO', 'PEAK'] as const;
const LEVELS = ['SEDENTARY', 'LIGHTLY_ACTIVE', 'MODERATELY_ACTIVE', 'VERY_ACTIVE'] as const;

/** One point per worn minute whose value is not zero (zero minutes are not stored). */
function minutePoints(
  pick: (ctx: PointContext, date: string, minute: number) => number,
  build: (amount: number) => Record<string, unknown>,
): Generator {
  return (ctx, date) => {
    const series = ctx.model.day(date);
    const source = trackerSource(ctx.account);
    const points: GeneratedPoint[] = [];
    forEachWornMinute(ctx, date, (m, utc, civil) => {
      const amount = pick(ctx, date, m);
      if (!amount) return;
      const offset = series.minuteOffset[m] ?? 0;
      points.push({
        sortMs: utc,
        physicalMs: utc,
        civilMs: civil,
        dayNumber: Math.floor(civil / DAY_MS),
        dataSource: source,
        value: () => ({
          interval: interval(utc, offset, utc + MINUTE_MS, offset),
          ...build(amount),
        }),
      });
    });
    return points;
  };
}

const GENERATORS: Record<string, Generator> = {
  steps: minutePoints(
    (ctx, date, m) => ctx.model.day(date).steps[m] ?? 0,
    (count) => ({ count: int64(count) }),
  ),
  distance: minutePoints(
    (ctx, date, m) => ctx.model.day(date).distanceMm[m] ?? 0,
    (mm) => ({ millimeters: int64(mm) }),
  ),
  floors: minutePoints(
    (ctx, date, m) => ctx.model.day(date).floors[m] ?? 0,
    (count) => ({ count: int64(count) }),
  ),
  altitude: minutePoints(
    (ctx, date, m) => (ctx.model.day(date).floors[m] ?? 0) * FLOOR_HEIGHT_MM,
    (mm) => ({ gainMillimeters: int64(mm) }),
  ),
  'active-zone-minutes': minutePoints(
    (ctx, date, m) => ctx.model.day(date).azmZone[m] ?? 0,
    (zone) => ({ heartRateZone: ZONES[zone], activeZoneMinutes: int64(zone === 1 ? 1 : 2) }),
  ),

  'heart-rate': (ctx, date) => {
    const series = ctx.model.day(date);
    const source = trackerSource(ctx.account);
    const points: GeneratedPoint[] = [];
    forEachWornMinute(ctx, date, (m) => {
      const offset = series.minuteOffset[m] ?? 0;
      const motionContext = (series.steps[m] ?? 0) > 40 ? 'ACTIVE' : 'SEDENTARY';
      for (const sample of ctx.model.heartRateSamples(date, m)) {
        points.push({
          sortMs: sample.utc,
          physicalMs: sample.utc,
          civilMs: sample.civil,
          dayNumber: Math.floor(sample.civil / DAY_MS),
          dataSource: source,
          value: () => ({
            sampleTime: sampleTime(sample.utc, offset),
            beatsPerMinute: int64(sample.bpm),
            metadata: { motionContext, sensorLocation: 'WRIST' },
          }),
        });
      }
    });
    return points;
  },

  'activity-level': (ctx, date) => {
    // Runs of equal level while awake and worn, merged into one interval each.
    const series = ctx.model.day(date);
    const source = trackerSource(ctx.account);
    const points: GeneratedPoint[] = [];
    let run: { start: number; end: number; civil: number; offset: number; level: number } | null =
      null;
    const flush = () => {
      if (!run) return;
      const r = run;
      points.push({
        sortMs: r.start,
        physicalMs: r.start,
        civilMs: r.civil,
        dayNumber: Math.floor(r.civil / DAY_MS),
        dataSource: source,
        value: () => ({
          interval: interval(r.start, r.offset, r.end, r.offset),
          activityLevelType: LEVELS[r.level],
        }),
      });
      run = null;
    };
    let previous = -2;
    forEachWornMinute(ctx, date, (m, utc, civil) => {
      if (series.stage[m]) {
        flush();
        return;
      }
      const level = series.level[m] ?? 0;
      const offset = series.minuteOffset[m] ?? 0;
      if (run && run.level === level && previous === m - 1 && run.offset === offset) {
        run.end = utc + MINUTE_MS;
      } else {
        flush();
        run = { start: utc, end: utc + MINUTE_MS, civil, offset, level };
      }
      previous = m;
    });
    flush();
    return points;
  },

  'daily-resting-heart-rate': dailyPoint((ctx, date) => {
    const bpm = ctx.model.restingHeartRate(date);
    if (bpm === null) return null;
    const main = ctx.model.plan(date).sleeps.some((sleep) => sleep.isMainSleep);
    return {
      beatsPerMinute: int64(bpm),
      dailyRestingHeartRateMetadata: {
        calculationMethod: main ? 'WITH_SLEEP' : 'ONLY_WITH_AWAKE_DATA',
      },
    };
  }),

  'daily-heart-rate-zones': dailyPoint((ctx, date) => {
    if (!ctx.model.plan(date).worn) return null;
    return {
      heartRateZones: ctx.model.heartRateReserveZones(date).map((zone) => ({
        heartRateZoneType: zone.type,
        minBeatsPerMinute: int64(zone.min),
        maxBeatsPerMinute: int64(zone.max),
      })),
    };
  }),

  'daily-oxygen-saturation': dailyPoint(
    (ctx, date) => {
      const night = ctx.model.spo2(date);
      if (!night) return null;
      return {
        averagePercentage: night.average,
        lowerBoundPercentage: night.min,
        upperBoundPercentage: night.max,
        standardDeviationPercentage: night.standardDeviation,
      };
    },
    (ctx, date) => mainSleepEnd(ctx, date),
  ),

  'daily-vo2-max': dailyPoint((ctx, date) => {
    const vo2 = ctx.model.vo2Max(date);
    if (!vo2) return null;
    return {
      vo2Max: vo2.value,
      cardioFitnessLevel: cardioFitnessLevel(vo2.value, ctx.account, date),
      estimated: vo2.estimated,
      vo2MaxCovariance: vo2.estimated ? 2.1 : 0.3,
    };
  }),

  'oxygen-saturation': (ctx, date) => {
    const night = ctx.model.spo2(date);
    if (!night || mainSleepEnd(ctx, date) > ctx.trackerCutoff) return [];
    const source = trackerSource(ctx.account);
    return night.readings.map((reading) => ({
      sortMs: reading.utc,
      physicalMs: reading.utc,
      civilMs: reading.civil,
      dayNumber: Math.floor(reading.civil / DAY_MS),
      dataSource: source,
      value: () => ({
        sampleTime: sampleTime(reading.utc, (reading.civil - reading.utc) / 1000),
        percentage: reading.value,
      }),
    }));
  },

  weight: (ctx, date) => {
    const weighIn = ctx.model.weighIn(date);
    if (!weighIn || weighIn.utc > ctx.nowMs) return [];
    return [
      {
        sortMs: weighIn.utc,
        physicalMs: weighIn.utc,
        civilMs: weighIn.civil,
        dayNumber: Math.floor(weighIn.civil / DAY_MS),
        id: weighIn.id,
        dataSource: weighIn.source === 'API' ? manualSource() : scaleSource(ctx.account),
        value: () => ({
          sampleTime: sampleTime(weighIn.utc, (weighIn.civil - weighIn.utc) / 1000),
          weightGrams: Math.round(weighIn.weightKg * 1000),
        }),
      },
    ];
  },

  'body-fat': (ctx, date) => {
    const weighIn = ctx.model.weighIn(date);
    if (!weighIn || weighIn.bodyFatPercent === null || weighIn.utc > ctx.nowMs) return [];
    const fat = weighIn.bodyFatPercent;
    return [
      {
        sortMs: weighIn.utc,
        physicalMs: weighIn.utc,
        civilMs: weighIn.civil,
        dayNumber: Math.floor(weighIn.civil / DAY_MS),
        id: `${weighIn.id.slice(0, 18)}${(Number(weighIn.id.slice(18)) + 1) % 10}`,
        dataSource: scaleSource(ctx.account),
        value: () => ({
          sampleTime: sampleTime(weighIn.utc, (weighIn.civil - weighIn.utc) / 1000),
          percentage: fat,
        }),
      },
    ];
  },

  sleep: (ctx, date) =>
    ctx.model
      .plan(date)
      .sleeps.filter((sleep) => sleep.endUtc <= ctx.trackerCutoff)
      .map((sleep) => ({
        sortMs: sleep.startUtc,
        // Sleep filters compare the wake time (end), not the start.
        physicalMs: sleep.endUtc,
        civilMs: sleep.endCivil,
        dayNumber: Math.floor(sleep.endCivil / DAY_MS),
        id: sleep.id,
        dataSource: { ...trackerSource(ctx.account), recordingMethod: 'DERIVED' },
        value: () => sleepValue(ctx, sleep),
      })),

  exercise: (ctx, date) =>
    ctx.model
      .plan(date)
      .exercises.filter((exercise) => exercise.endUtc <= ctx.trackerCutoff)
      .map((exercise) => ({
        sortMs: exercise.startUtc,
        physicalMs: exercise.startUtc,
        civilMs: exercise.startCivil,
        dayNumber: Math.floor(exercise.startCivil / DAY_MS),
        id: exercise.id,
        dataSource: { ...trackerSource(ctx.account), recordingMethod: 'ACTIVELY_MEASURED' },
        value: () => exerciseValue(ctx, date, exercise),
      })),

  'nutrition-log': (ctx, date) =>
    ctx.model
      .foods(date)
      .filter((log) => log.utc <= ctx.nowMs)
      .map((log) => {
        const offset = (log.civil - log.utc) / 1000;
        const f = log.food;
        return {
          sortMs: log.utc,
          physicalMs: log.utc,
          civilMs: log.civil,
          dayNumber: Math.floor(log.civil / DAY_MS),
          id: log.id,
          dataSource: manualSource(),
          value: () => ({
            interval: interval(log.utc, offset, log.utc + 15 * MINUTE_MS, offset),
            foodDisplayName: f.name,
            mealType: MEAL_TYPES[log.mealTypeId],
            energy: { kcal: f.calories },
            energyFromFat: { kcal: Math.round(f.fat * 9 * 10) / 10 },
            totalCarbohydrate: { grams: f.carbs },
            totalFat: { grams: f.fat },
            nutrients: [
              { nutrient: 'PROTEIN', quantity: { grams: f.protein } },
              { nutrient: 'DIETARY_FIBER', quantity: { grams: f.fiber } },
              { nutrient: 'SODIUM', quantity: { grams: f.sodium / 1000 } },
            ],
            serving: {
              amount: f.amount,
              foodMeasurementUnitDisplayName: f.amount === 1 ? f.unitName : f.unitPlural,
            },
          }),
        };
      }),

  'hydration-log': (ctx, date) =>
    ctx.model
      .water(date)
      .filter((log) => log.utc <= ctx.nowMs)
      .map((log) => {
        const offset = (log.civil - log.utc) / 1000;
        return {
          sortMs: log.utc,
          physicalMs: log.utc,
          civilMs: log.civil,
          dayNumber: Math.floor(log.civil / DAY_MS),
          id: log.id,
          dataSource: manualSource(),
          value: () => ({
            interval: interval(log.utc, offset, log.utc + MINUTE_MS, offset),
            amountConsumed: { milliliters: log.milliliters, userProvidedUnit: 'MILLILITER' },
          }),
        };
      }),
};

/** Daily types: one point per date, available once the day's data has synced. */
function dailyPoint(
  build: (ctx: PointContext, date: string) => Record<string, unknown> | null,
  availableAt: (ctx: PointContext, date: string) => number = (ctx, date) =>
    localDayUtcRange(ctx.account.timeZone, date)[0] + 6 * 3_600_000,
): Generator {
  return (ctx, date) => {
    if (availableAt(ctx, date) > ctx.trackerCutoff) return [];
    const value = build(ctx, date);
    if (!value) return [];
    const [start] = localDayUtcRange(ctx.account.timeZone, date);
    return [
      {
        sortMs: start,
        physicalMs: start,
        civilMs: civilMsOfDate(date),
        dayNumber: dayNumberOf(date),
        dataSource: { ...trackerSource(ctx.account), recordingMethod: 'DERIVED' },
        value: () => ({ date: dateObject(date), ...value }),
      },
    ];
  };
}

function mainSleepEnd(ctx: PointContext, date: string): number {
  const main = ctx.model.plan(date).sleeps.find((sleep) => sleep.isMainSleep);
  return main ? main.endUtc : Number.POSITIVE_INFINITY;
}

const GOOGLE_STAGE: Record<string, string> = {
  wake: 'AWAKE',
  light: 'LIGHT',
  deep: 'DEEP',
  rem: 'REM',
  asleep: 'ASLEEP',
  restless: 'RESTLESS',
  awake: 'AWAKE',
};

function sleepValue(ctx: PointContext, sleep: SleepSession): Record<string, unknown> {
  const tz = ctx.account.timeZone;
  const offsetAt = (civil: number) => utcOffsetSecondsAtCivil(tz, civil, sleep);
  const createMs = sleep.endUtc + 10 * MINUTE_MS;
  const micros = createRng(sleep.id, 'create').int(0, 999_999);
  const createTime = timestampMicros(createMs + Math.floor(micros / 1000), micros);
  const updateTime = timestampMicros(
    createMs + 6_000 + Math.floor(micros / 1000),
    (micros * 7) % 1_000_000,
  );
  const short = (segment: (typeof sleep.segments)[number]) =>
    segment.level === 'wake' && segment.seconds <= 180 && sleep.type === 'stages';
  const stages = sleep.segments
    .filter((segment) => !short(segment))
    .map((segment) => {
      const start = segment.startCivil;
      const end = start + segment.seconds * 1000;
      return {
        startTime: timestampFromCivil(start, offsetAt(start)),
        startUtcOffset: duration(offsetAt(start)),
        endTime: timestampFromCivil(end, offsetAt(end)),
        endUtcOffset: duration(offsetAt(end)),
        type: GOOGLE_STAGE[segment.level],
        createTime,
        updateTime,
      };
    });
  const shortAwakenings = sleep.segments.filter(short).map((segment) => {
    const start = segment.startCivil;
    const end = start + segment.seconds * 1000;
    return {
      startTime: timestampFromCivil(start, offsetAt(start)),
      startUtcOffset: duration(offsetAt(start)),
      endTime: timestampFromCivil(end, offsetAt(end)),
      endUtcOffset: duration(offsetAt(end)),
      type: 'AWAKE',
    };
  });
  const minutesByType = new Map<string, { minutes: number; count: number }>();
  for (const segment of sleep.segments) {
    const type = GOOGLE_STAGE[segment.level] ?? 'AWAKE';
    const entry = minutesByType.get(type) ?? { minutes: 0, count: 0 };
    entry.minutes += segment.seconds / 60;
    entry.count += 1;
    minutesByType.set(type, entry);
  }
  const totalMinutes = Math.round((sleep.endCivil - sleep.startCivil) / MINUTE_MS);
  const awakeTypes = new Set(['AWAKE', 'RESTLESS']);
  const minutesAwake = Math.round(
    [...minutesByType]
      .filter(([type]) => awakeTypes.has(type))
      .reduce((sum, [, v]) => sum + v.minutes, 0),
  );
  const order =
    sleep.type === 'stages' ? ['AWAKE', 'LIGHT', 'DEEP', 'REM'] : ['AWAKE', 'RESTLESS', 'ASLEEP'];
  return {
    interval: {
      startTime: timestampFromCivil(sleep.startCivil, offsetAt(sleep.startCivil)),
      startUtcOffset: duration(offsetAt(sleep.startCivil)),
      endTime: timestampFromCivil(sleep.endCivil, offsetAt(sleep.endCivil)),
      endUtcOffset: duration(offsetAt(sleep.endCivil)),
    },
    type: sleep.type === 'stages' ? 'STAGES' : 'CLASSIC',
    stages,
    ...(shortAwakenings.length && { shortAwakenings }),
    metadata: {
      stagesStatus:
        sleep.type === 'stages'
          ? 'SUCCEEDED'
          : sleep.isMainSleep
            ? 'REJECTED_COVERAGE'
            : 'REJECTED_NAP',
      processed: true,
      ...(sleep.isMainSleep && { mainSleep: true }),
      ...(!sleep.isMainSleep && { nap: true }),
    },
    summary: omitDefaults({
      minutesInSleepPeriod: int64(totalMinutes),
      minutesAfterWakeUp: '0',
      minutesToFallAsleep: int64(
        sleep.segments[0]?.level === 'wake' ? Math.round((sleep.segments[0].seconds ?? 0) / 60) : 0,
      ),
      minutesAsleep: int64(totalMinutes - minutesAwake),
      minutesAwake: int64(minutesAwake),
      stagesSummary: order
        .filter((type) => minutesByType.has(type))
        .map((type) => {
          const entry = minutesByType.get(type) ?? { minutes: 0, count: 0 };
          return { type, minutes: int64(entry.minutes), count: int64(entry.count) };
        }),
    }),
    createTime,
    updateTime,
  };
}

function exerciseValue(
  ctx: PointContext,
  date: string,
  exercise: {
    startUtc: number;
    endUtc: number;
    startCivil: number;
    endCivil: number;
    kind: ExerciseKind;
    id: string;
  },
) {
  const series = ctx.model.day(date);
  const plan = ctx.model.plan(date);
  const from = Math.round((exercise.startCivil - plan.civilStart) / MINUTE_MS);
  const to = Math.round((exercise.endCivil - plan.civilStart) / MINUTE_MS);
  let steps = 0;
  let distance = 0;
  let kcal = 0;
  let hrSum = 0;
  let hrCount = 0;
  let azm = 0;
  const zoneSeconds = { lightTime: 0, moderateTime: 0, vigorousTime: 0, peakTime: 0 };
  const zones = ctx.model.heartRateReserveZones(date);
  for (let m = from; m < to; m++) {
    steps += series.steps[m] ?? 0;
    distance += series.distanceMm[m] ?? 0;
    kcal += series.kcal[m] ?? 0;
    const bpm = series.heartRate[m] ?? 0;
    if (bpm) {
      hrSum += bpm;
      hrCount++;
    }
    const zone = series.azmZone[m] ?? 0;
    azm += zone === 0 ? 0 : zone === 1 ? 1 : 2;
    if (bpm >= zones[3].min) zoneSeconds.peakTime += 60;
    else if (bpm >= zones[2].min) zoneSeconds.vigorousTime += 60;
    else if (bpm >= zones[1].min) zoneSeconds.moderateTime += 60;
    else if (bpm >= zones[0].min) zoneSeconds.lightTime += 60;
  }
  const offset = (exercise.startCivil - exercise.startUtc) / 1000;
  const endOffset = (exercise.endCivil - exercise.endUtc) / 1000;
  const seconds = (exercise.endUtc - exercise.startUtc) / 1000;
  const micros = createRng(exercise.id, 'create').int(0, 999_999);
  const moving = exercise.kind === 'RUN' || exercise.kind === 'WALK' || exercise.kind === 'BIKE';
  const bikeDistance = exercise.kind === 'BIKE' ? Math.round(seconds * 6200) : 0;
  const totalDistance = distance + bikeDistance;
  const hasGps =
    exercise.kind !== 'WEIGHTS' &&
    exercise.kind !== 'YOGA' &&
    ctx.account.tracker.features.includes('GPS');
  return {
    interval: interval(exercise.startUtc, offset, exercise.endUtc, endOffset, false),
    exerciseType: EXERCISE_TYPES[exercise.kind].type,
    displayName: EXERCISE_TYPES[exercise.kind].name,
    activeDuration: duration(seconds),
    metricsSummary: omitDefaults({
      caloriesKcal: Math.round(kcal),
      averageHeartRateBeatsPerMinute: hrCount ? int64(hrSum / hrCount) : undefined,
      activeZoneMinutes: int64(azm),
      heartRateZoneDurations: {
        lightTime: duration(zoneSeconds.lightTime),
        moderateTime: duration(zoneSeconds.moderateTime),
        vigorousTime: duration(zoneSeconds.vigorousTime),
        peakTime: duration(zoneSeconds.peakTime),
      },
      distanceMillimeters: moving && totalDistance ? totalDistance : undefined,
      steps: int64(steps),
      averagePaceSecondsPerMeter:
        moving && totalDistance
          ? Math.round((seconds / (totalDistance / 1000)) * 1000) / 1000
          : undefined,
      averageSpeedMillimetersPerSecond:
        moving && totalDistance ? Math.round((totalDistance / seconds) * 10) / 10 : undefined,
    }),
    exerciseEvents: [
      {
        eventTime: timestampFromCivil(exercise.startCivil, offset),
        eventUtcOffset: duration(offset),
        exerciseEventType: 'START',
      },
      {
        eventTime: timestampFromCivil(exercise.endCivil, endOffset),
        eventUtcOffset: duration(endOffset),
        exerciseEventType: 'STOP',
      },
    ],
    exerciseMetadata: { hasGps },
    createTime: timestampMicros(
      exercise.endUtc + 6 * MINUTE_MS + Math.floor(micros / 1000),
      micros,
    ),
    updateTime: timestampMicros(
      exercise.endUtc + 7 * MINUTE_MS + Math.floor(micros / 1000),
      (micros * 3) % 1_000_000,
    ),
  };
}

/** ACSM-style VO2 max categories by sex and age (coarse). */
function cardioFitnessLevel(vo2: number, account: SimulatedAccount, date: string): string {
  const age = ageOn(account, date);
  const base = (account.sex === 'MALE' ? 44 : 38) - Math.max(0, age - 30) * 0.3;
  const steps = [-8, -4, 0, 4, 8];
  const levels = ['POOR', 'FAIR', 'AVERAGE', 'GOOD', 'VERY_GOOD', 'EXCELLENT'];
  const index = steps.findIndex((step) => vo2 < base + step);
  return levels[index < 0 ? levels.length - 1 : index] ?? 'AVERAGE';
}

function trackerSource(account: SimulatedAccount): Record<string, unknown> {
  return {
    recordingMethod: 'PASSIVELY_MEASURED',
    device: {
      displayName: account.tracker.model,
      formFactor: account.tracker.formFactor,
      manufacturer: account.tracker.model.startsWith('Pixel') ? 'Google' : 'Fitbit',
    },
    platform: 'FITBIT',
  };
}

function scaleSource(account: SimulatedAccount): Record<string, unknown> {
  return {
    recordingMethod: 'PASSIVELY_MEASURED',
    device: {
      displayName: account.scale?.model ?? 'Aria Air',
      formFactor: 'SCALE',
      manufacturer: 'Fitbit',
    },
    platform: 'FITBIT',
  };
}

function manualSource(): Record<string, unknown> {
  return { recordingMethod: 'MANUAL', platform: 'FITBIT' };
}

function timestampFromCivil(civil: number, offsetSeconds: number): string {
  const iso = new Date(civil - offsetSeconds * 1000).toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** The offset at a civil time inside a sleep (sleeps can span a DST change). */
function utcOffsetSecondsAtCivil(timeZone: string, civil: number, sleep: SleepSession): number {
  const guess = sleep.startUtc + (civil - sleep.startCivil);
  return utcOffsetSeconds(timeZone, guess);
}
