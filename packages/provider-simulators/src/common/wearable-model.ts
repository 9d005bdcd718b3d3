import { ageOn, type ExerciseKind, type SimulatedAccount } from './accounts';
import {
  DAY_MS,
  MINUTE_MS,
  addDays,
  civilMsOfDate,
  civilToUtcMs,
  dayNumberOf,
  localDayUtcRange,
  toCivilMs,
  utcOffsetSeconds,
  weekdayOf,
} from './civil-time';
import { createRng, deterministicDigits, unitHash } from './prng';

/**
 * The physiological model behind the Fitbit and Google Health simulators: one simulated
 * Fitbit device per account, generated lazily per local day and seeded by account id and
 * date, so any day in the past (or years ahead) costs the same and never changes.
 *
 * Per day it produces a minute series (wear, sleep stage, steps, heart rate, distance,
 * floors, calories, activity level, heart-rate zone), sleep sessions, exercise sessions,
 * heart-rate samples every few seconds (on demand, per minute), weigh-ins, SpO2, VO2 max,
 * resting heart rate and food / water logs. Providers only reshape these values.
 *
 * Plausibility rules the tests check: heart rate stays within 38–195 bpm, main sleep is at
 * night, steps are zero during sleep, and nothing exists while the tracker is off the wrist.
 */

export type StageCode = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;
/** Minute stage codes: 0 = not in a sleep session. */
export const STAGE = {
  none: 0,
  wake: 1,
  light: 2,
  deep: 3,
  rem: 4,
  asleep: 5,
  restless: 6,
  awake: 7,
} as const;

export type SleepLevel = 'wake' | 'light' | 'deep' | 'rem' | 'asleep' | 'restless' | 'awake';

export interface SleepSegment {
  /** Local wall time (civil ms). */
  startCivil: number;
  seconds: number;
  level: SleepLevel;
}

export interface SleepSession {
  /** 19-digit id for Google data point names. */
  id: string;
  /** Fitbit logId. */
  logId: number;
  /** Local date the sleep ended on (Fitbit dateOfSleep). */
  wakeDate: string;
  startCivil: number;
  endCivil: number;
  startUtc: number;
  endUtc: number;
  type: 'stages' | 'classic';
  isMainSleep: boolean;
  /** Fitbit infoCode: 0 ok, 2 shorter than 3 h (naps are classic). */
  infoCode: number;
  segments: SleepSegment[];
}

export interface ExerciseSession {
  id: string;
  logId: number;
  kind: ExerciseKind;
  startCivil: number;
  endCivil: number;
  startUtc: number;
  endUtc: number;
}

export interface DayPlan {
  date: string;
  dayNumber: number;
  /** Civil ms of local midnight. */
  civilStart: number;
  /** Before memberSince nothing exists at all. */
  member: boolean;
  /** Tracker worn on this day (false = left in a drawer all day). */
  worn: boolean;
  /** The night ending this morning, planned even when not recorded. */
  plannedSleep: { startCivil: number; endCivil: number };
  /** Recorded sleeps that end on this date (main sleep, then naps), in start order. */
  sleeps: SleepSession[];
  exercises: ExerciseSession[];
  /** Off-wrist windows in local minutes of the day [start, end). */
  offWrist: Array<[number, number]>;
  /** Underlying resting heart rate (unrounded). */
  restingRate: number;
  /** Tracker worn from this minute of the day (0 unless the night was not recorded). */
  wornFromMinute: number;
  /** Tracker worn until this minute (1440 unless the next night is not recorded). */
  wornUntilMinute: number;
}

export interface DaySeries {
  date: string;
  /** Minutes in the local day (1440; the real DST length is handled by minuteUtc). */
  length: number;
  worn: Uint8Array;
  stage: Uint8Array;
  steps: Uint16Array;
  /** Average bpm in the minute; 0 when not worn. */
  heartRate: Uint8Array;
  distanceMm: Uint32Array;
  floors: Uint8Array;
  kcal: Float32Array;
  /** 0 sedentary, 1 lightly, 2 fairly, 3 very active. */
  level: Uint8Array;
  /** Active-zone-minutes zone: 0 none, 1 fat burn, 2 cardio, 3 peak. */
  azmZone: Uint8Array;
  /** UTC start of each local minute; NaN for local times skipped by a DST change. */
  minuteUtc: Float64Array;
  /** UTC offset (seconds) of each minute. */
  minuteOffset: Int32Array;
}

export interface DaySummary {
  date: string;
  wornMinutes: number;
  steps: number;
  distanceMm: number;
  floors: number;
  elevationMm: number;
  caloriesOut: number;
  caloriesBmr: number;
  activityCalories: number;
  minutesSedentary: number;
  minutesLightlyActive: number;
  minutesFairlyActive: number;
  minutesVeryActive: number;
  /** Legacy Fitbit zones by % of max heart rate: minutes and calories. */
  heartZones: Array<{
    name: HeartZoneName;
    min: number;
    max: number;
    minutes: number;
    caloriesOut: number;
  }>;
  azm: { fatBurn: number; cardio: number; peak: number };
}

export type HeartZoneName = 'Out of Range' | 'Fat Burn' | 'Cardio' | 'Peak';

export interface WeighIn {
  id: string;
  /** Fitbit logId: local epoch ms of the measurement. */
  logId: number;
  civil: number;
  utc: number;
  weightKg: number;
  bodyFatPercent: number | null;
  source: 'Aria' | 'AriaAir' | 'API';
}

export interface Spo2Night {
  average: number;
  min: number;
  max: number;
  standardDeviation: number;
  /** One reading per minute of the main sleep. */
  readings: Array<{ civil: number; utc: number; value: number }>;
}

export interface Vo2Max {
  value: number;
  /** No GPS runs: Fitbit shows a range and Google marks it estimated. */
  estimated: boolean;
}

export interface FoodLog {
  id: string;
  logId: number;
  civil: number;
  utc: number;
  mealTypeId: 1 | 2 | 3 | 4 | 5 | 7;
  food: FoodItem;
}

export interface FoodItem {
  foodId: number;
  name: string;
  unitName: string;
  unitPlural: string;
  unitId: number;
  amount: number;
  calories: number;
  carbs: number;
  fat: number;
  fiber: number;
  protein: number;
  /** mg */
  sodium: number;
}

export interface WaterLog {
  id: string;
  logId: number;
  civil: number;
  utc: number;
  milliliters: number;
}

export interface HeartRateSample {
  /** UTC ms. */
  utc: number;
  civil: number;
  bpm: number;
}

export const HEART_RATE_FLOOR = 38;
export const HEART_RATE_CEILING = 195;

/** The model of one account; obtain it with wearableModel(). */
export class WearableModel {
  private readonly plans = new LruCache<string, DayPlan>(4096);
  private readonly series = new LruCache<string, DaySeries>(96);
  private readonly summaries = new LruCache<string, DaySummary>(4096);

  constructor(readonly account: SimulatedAccount) {}

  /** Maximum heart rate used for zones (220 − age). */
  maxHeartRate(date: string): number {
    return 220 - ageOn(this.account, date);
  }

  /** Daily plan: sleeps, exercise and wear; cheap and cached. */
  plan(date: string): DayPlan {
    let plan = this.plans.get(date);
    if (!plan) {
      plan = this.buildPlan(date);
      this.plans.set(date, plan);
    }
    return plan;
  }

  /** Minute series of a local day (about 0.2 ms to build, cached). */
  day(date: string): DaySeries {
    let series = this.series.get(date);
    if (!series) {
      series = this.buildSeries(date);
      this.series.set(date, series);
    }
    return series;
  }

  /**
   * Totals of a local day counting only minutes that start before `cutoffUtc` (data synced
   * so far). Full days are cached.
   */
  summary(date: string, cutoffUtc = Number.POSITIVE_INFINITY): DaySummary {
    const [, dayEnd] = localDayUtcRange(this.account.timeZone, date);
    const complete = dayEnd <= cutoffUtc;
    if (complete) {
      const cached = this.summaries.get(date);
      if (cached) return cached;
    }
    const summary = this.buildSummary(date, cutoffUtc);
    if (complete) this.summaries.set(date, summary);
    return summary;
  }

  /** Heart-rate samples (every 2–8 s) within one worn minute of a day; empty when not worn. */
  heartRateSamples(date: string, minute: number): HeartRateSample[] {
    const series = this.day(date);
    const bpm = series.heartRate[minute] ?? 0;
    const utcStart = series.minuteUtc[minute] ?? Number.NaN;
    if (!bpm || Number.isNaN(utcStart)) return [];
    const nextBpm = series.heartRate[minute + 1] || bpm;
    const offsetMs = (series.minuteOffset[minute] ?? 0) * 1000;
    const rng = createRng(this.account.id, 'hr-samples', date, minute);
    const samples: HeartRateSample[] = [];
    for (let second = rng.int(0, 4); second < 60; second += rng.int(2, 8)) {
      const value = bpm + ((nextBpm - bpm) * second) / 60 + rng.normal(0, 1.2);
      const utc = utcStart + second * 1000;
      samples.push({ utc, civil: utc + offsetMs, bpm: clampHeartRate(Math.round(value)) });
    }
    return samples;
  }

  /** Resting heart rate reported for the day, or null when there is too little data. */
  restingHeartRate(date: string): number | null {
    const plan = this.plan(date);
    if (!plan.member || !plan.worn) return null;
    return Math.round(plan.restingRate);
  }

  /** Morning weigh-in (scale) or weekly manual entry; null on days without one. */
  weighIn(date: string): WeighIn | null {
    const account = this.account;
    const plan = this.plan(date);
    if (!plan.member) return null;
    const rng = createRng(account.id, 'weigh-in', date);
    let civil: number;
    let source: WeighIn['source'];
    if (account.scale) {
      if (!rng.chance(account.id === 'ben-okafor' ? 0.9 : 0.8)) return null;
      civil = plan.plannedSleep.endCivil + rng.int(8, 25) * MINUTE_MS + rng.int(0, 59) * 1000;
      source = account.scale.model === 'Aria Air' ? 'AriaAir' : 'Aria';
    } else if (account.habits.logsWeightManually) {
      if (weekdayOf(date) !== 0 || !rng.chance(0.85)) return null;
      civil = plan.civilStart + (8 * 60 + rng.int(-40, 40)) * MINUTE_MS;
      source = 'API';
    } else {
      return null;
    }
    const years = (plan.dayNumber - dayNumberOf(account.memberSince)) / 365.25;
    const weekday = weekdayOf(date);
    const raw =
      account.baselineWeightKg +
      account.weightTrendKgPerYear * years +
      // Heavier after the weekend, lighter by Friday: the weekly drift the issue asks for.
      0.35 * Math.cos((2 * Math.PI * (weekday - 1)) / 7) +
      0.5 * Math.sin((2 * Math.PI * plan.dayNumber) / 365.25) +
      rng.normal(0, 0.22);
    const weightKg = Math.round(raw * 10) / 10;
    const bodyFatPercent =
      account.scale && account.baselineBodyFatPercent !== null
        ? Math.round(
            (account.baselineBodyFatPercent +
              0.35 * (weightKg - account.baselineWeightKg) +
              rng.normal(0, 0.4)) *
              10,
          ) / 10
        : null;
    return {
      id: dataPointId(plan.dayNumber, 'weigh-in', account.id, date),
      logId: civil,
      civil,
      utc: civilToUtcMs(account.timeZone, civil),
      weightKg,
      bodyFatPercent,
      source,
    };
  }

  /** SpO2 during the main sleep that ended on the date (stages sleeps only). */
  spo2(date: string): Spo2Night | null {
    const main = this.plan(date).sleeps.find(
      (sleep) => sleep.isMainSleep && sleep.type === 'stages',
    );
    if (!main) return null;
    const rng = createRng(this.account.id, 'spo2', date);
    const average = 95.2 + unitHash(this.account.id, 'spo2-base') * 1.8 + rng.normal(0, 0.35);
    const readings: Spo2Night['readings'] = [];
    let value = average;
    for (let civil = main.startCivil + 5 * MINUTE_MS; civil < main.endCivil; civil += MINUTE_MS) {
      value = value + (average - value) * 0.3 + rng.normal(0, 0.6);
      const reading = Math.round(Math.min(100, Math.max(88, value)) * 10) / 10;
      const jittered = civil + rng.int(0, 59) * 1000;
      readings.push({
        civil: jittered,
        utc: civilToUtcMs(this.account.timeZone, jittered),
        value: reading,
      });
    }
    if (readings.length === 0) return null;
    const values = readings.map((reading) => reading.value);
    const mean = values.reduce((sum, v) => sum + v, 0) / values.length;
    const sd = Math.sqrt(values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / values.length);
    return {
      average: Math.round(mean * 10) / 10,
      min: Math.min(...values),
      max: Math.max(...values),
      standardDeviation: Math.round(sd * 10) / 10,
      readings,
    };
  }

  /** Daily VO2 max estimate; null when the tracker was not worn. */
  vo2Max(date: string): Vo2Max | null {
    const plan = this.plan(date);
    if (!plan.member || !plan.worn) return null;
    const account = this.account;
    const base = (15.3 * this.maxHeartRate(date)) / account.restingHeartRate;
    const slow = 1.2 * Math.sin((2 * Math.PI * plan.dayNumber) / 97 + unitHash(account.id, 'vo2'));
    const value =
      Math.round((base + slow + createRng(account.id, 'vo2', date).normal(0, 0.2)) * 10) / 10;
    return { value, estimated: !account.habits.exerciseKinds.includes('RUN') };
  }

  /** Food logs of the day (accounts that log food). */
  foods(date: string): FoodLog[] {
    const plan = this.plan(date);
    const account = this.account;
    if (!plan.member || !account.habits.logsFood) return [];
    const rng = createRng(account.id, 'foods', date);
    if (!rng.chance(0.9)) return [];
    const meals: Array<[FoodLog['mealTypeId'], number, readonly FoodItem[]]> = [
      [1, 7 * 60 + 40, BREAKFASTS],
      [3, 12 * 60 + 45, LUNCHES],
      [5, 19 * 60 + 10, DINNERS],
    ];
    if (rng.chance(0.3)) meals.push([2, 10 * 60 + 15, SNACKS]);
    if (rng.chance(0.6)) meals.push([4, 15 * 60 + 30, SNACKS]);
    meals.sort((a, b) => a[1] - b[1]);
    return meals.map(([mealTypeId, minute, choices], index) => {
      const civil = plan.civilStart + (minute + rng.int(-25, 25)) * MINUTE_MS;
      return {
        id: dataPointId(plan.dayNumber, `food-${index}`, account.id, date),
        logId: Number(deterministicDigits(11, account.id, 'food-log', date, index)),
        civil,
        utc: civilToUtcMs(account.timeZone, civil),
        mealTypeId,
        food: rng.pick(choices),
      };
    });
  }

  /** Water logs of the day (accounts that log water). */
  water(date: string): WaterLog[] {
    const plan = this.plan(date);
    const account = this.account;
    if (!plan.member || !account.habits.logsWater) return [];
    const rng = createRng(account.id, 'water', date);
    const count = rng.int(3, 7);
    const minutes = Array.from({ length: count }, () => rng.int(8 * 60, 21 * 60)).sort(
      (a, b) => a - b,
    );
    return minutes.map((minute, index) => {
      const civil = plan.civilStart + minute * MINUTE_MS;
      return {
        id: dataPointId(plan.dayNumber, `water-${index}`, account.id, date),
        logId: Number(deterministicDigits(11, account.id, 'water-log', date, index)),
        civil,
        utc: civilToUtcMs(account.timeZone, civil),
        milliliters: rng.pick([250, 250, 330, 500]),
      };
    });
  }

  /** Google-style heart-rate zone bounds (Karvonen) for the date. */
  heartRateReserveZones(date: string) {
    const rest = this.account.restingHeartRate;
    const max = this.maxHeartRate(date);
    const at = (fraction: number) => Math.round(rest + fraction * (max - rest));
    return [
      { type: 'LIGHT', min: at(0.3), max: at(0.4) - 1 },
      { type: 'MODERATE', min: at(0.4), max: at(0.6) - 1 },
      { type: 'VIGOROUS', min: at(0.6), max: at(0.85) - 1 },
      { type: 'PEAK', min: at(0.85), max },
    ] as const;
  }

  // ---------------------------------------------------------------------------------------

  private buildPlan(date: string): DayPlan {
    const account = this.account;
    const dayNumber = dayNumberOf(date);
    const civilStart = civilMsOfDate(date);
    const member = dayNumber >= dayNumberOf(account.memberSince);
    const worn = member && isWornDay(account, date);
    const previousWorn =
      dayNumber - 1 >= dayNumberOf(account.memberSince) && isWornDay(account, addDays(date, -1));
    const plannedSleep = plannedMainSleep(account, date);
    const nextSleep = plannedMainSleep(account, addDays(date, 1));
    const rng = createRng(account.id, 'plan', date);

    const restingRate =
      account.restingHeartRate +
      1.5 * Math.sin((2 * Math.PI * dayNumber) / 47 + unitHash(account.id, 'rhr-phase') * 6) +
      rng.normal(0, 0.8);

    const sleeps: SleepSession[] = [];
    const mainRecorded = worn && previousWorn && !nightOff(account, date);
    if (mainRecorded) {
      sleeps.push(this.buildSleep(date, plannedSleep.startCivil, plannedSleep.endCivil, true));
    }
    if (worn && rng.chance(0.06)) {
      const start = civilStart + (13 * 60 + 30 + rng.int(0, 150)) * MINUTE_MS;
      sleeps.push(this.buildSleep(date, start, start + rng.int(25, 70) * MINUTE_MS, false));
    }

    const wakeMinute = Math.max(0, Math.round((plannedSleep.endCivil - civilStart) / MINUTE_MS));
    const nextBedMinute = Math.min(
      1440,
      Math.round((nextSleep.startCivil - civilStart) / MINUTE_MS),
    );
    const nextRecorded =
      isWornDay(account, addDays(date, 1)) && !nightOff(account, addDays(date, 1));

    const exercises: ExerciseSession[] = [];
    if (worn && rng.chance(account.habits.exerciseDaysPerWeek / 7)) {
      const kind = rng.pick(account.habits.exerciseKinds);
      const morning = rng.chance(0.4);
      const startMinute = morning ? wakeMinute + rng.int(40, 90) : 17 * 60 + 30 + rng.int(0, 150);
      const duration = EXERCISE_DURATION[kind](rng);
      const latest = nextBedMinute - 60;
      const start = Math.min(startMinute, latest - duration);
      const naps = sleeps.filter((sleep) => !sleep.isMainSleep);
      const startCivil = civilStart + start * MINUTE_MS;
      const endCivil = startCivil + duration * MINUTE_MS;
      const overlapsNap = naps.some(
        (nap) => nap.startCivil < endCivil && startCivil < nap.endCivil,
      );
      if (start > wakeMinute + 20 && !overlapsNap) {
        exercises.push({
          id: dataPointId(dayNumber, 'exercise', account.id, date),
          logId: Number(deterministicDigits(11, account.id, 'exercise-log', date)),
          kind,
          startCivil,
          endCivil,
          startUtc: civilToUtcMs(account.timeZone, startCivil),
          endUtc: civilToUtcMs(account.timeZone, endCivil),
        });
      }
    }

    const offWrist: Array<[number, number]> = [];
    const busy = (from: number, to: number) =>
      exercises.some((ex) => {
        const exStart = (ex.startCivil - civilStart) / MINUTE_MS;
        const exEnd = (ex.endCivil - civilStart) / MINUTE_MS;
        return from < exEnd + 5 && exStart - 5 < to;
      }) ||
      sleeps.some((sleep) => {
        const s = (sleep.startCivil - civilStart) / MINUTE_MS;
        const e = (sleep.endCivil - civilStart) / MINUTE_MS;
        return from < e && s < to;
      });
    if (rng.chance(0.55)) {
      const from = wakeMinute + rng.int(20, 60);
      const to = from + rng.int(15, 35);
      if (!busy(from, to) && to < nextBedMinute) offWrist.push([from, to]);
    }
    if (rng.chance(0.15)) {
      const from = 19 * 60 + rng.int(0, 120);
      const to = from + rng.int(45, 100);
      if (!busy(from, to) && to < nextBedMinute) offWrist.push([from, to]);
    }

    return {
      date,
      dayNumber,
      civilStart,
      member,
      worn,
      plannedSleep,
      sleeps,
      exercises,
      offWrist,
      restingRate,
      wornFromMinute: mainRecorded ? 0 : wakeMinute,
      wornUntilMinute: nextRecorded ? 1440 : nextBedMinute,
    };
  }

  private buildSleep(
    date: string,
    startCivil: number,
    endCivil: number,
    isMainSleep: boolean,
  ): SleepSession {
    const account = this.account;
    const rng = createRng(account.id, 'sleep-stages', date, isMainSleep ? 'main' : 'nap');
    const minutes = (endCivil - startCivil) / MINUTE_MS;
    // Fitbit needs about 3 hours and enough heart-rate data for stages; naps are classic.
    const type: SleepSession['type'] = minutes >= 180 && rng.chance(0.96) ? 'stages' : 'classic';
    const segments =
      type === 'stages'
        ? stagesHypnogram(rng, startCivil, endCivil)
        : classicHypnogram(rng, startCivil, endCivil);
    const dayNumber = dayNumberOf(date);
    return {
      id: dataPointId(dayNumber, isMainSleep ? 'sleep-main' : 'sleep-nap', account.id, date),
      logId: Number(
        deterministicDigits(11, account.id, 'sleep-log', date, isMainSleep ? 'main' : 'nap'),
      ),
      wakeDate: date,
      startCivil,
      endCivil,
      startUtc: civilToUtcMs(account.timeZone, startCivil),
      endUtc: civilToUtcMs(account.timeZone, endCivil),
      type,
      isMainSleep,
      infoCode: type === 'classic' && minutes < 180 ? 2 : 0,
      segments,
    };
  }

  private buildSeries(date: string): DaySeries {
    const account = this.account;
    const plan = this.plan(date);
    const next = this.plan(addDays(date, 1));
    const length = 1440;
    const series: DaySeries = {
      date,
      length,
      worn: new Uint8Array(length),
      stage: new Uint8Array(length),
      steps: new Uint16Array(length),
      heartRate: new Uint8Array(length),
      distanceMm: new Uint32Array(length),
      floors: new Uint8Array(length),
      kcal: new Float32Array(length),
      level: new Uint8Array(length),
      azmZone: new Uint8Array(length),
      minuteUtc: new Float64Array(length),
      minuteOffset: new Int32Array(length),
    };
    fillMinuteClock(account.timeZone, plan.civilStart, series);

    const weightKg = account.baselineWeightKg;
    const age = ageOn(account, date);
    const bmrPerMinute =
      (10 * weightKg + 6.25 * account.heightCm - 5 * age + (account.sex === 'MALE' ? 5 : -161)) /
      1440;
    const kcalPerMet = (weightKg * 3.5) / 200;
    if (!plan.member) return series;
    if (!plan.worn) {
      series.kcal.fill(bmrPerMinute);
      return series;
    }

    // Sleep stages: this morning's sessions and tonight's sleep if it starts before midnight.
    const sessions = [
      ...plan.sleeps,
      ...next.sleeps.filter((sleep) => sleep.startCivil < next.civilStart),
    ];
    for (const sleep of sessions) {
      for (const segment of sleep.segments) {
        const from = Math.floor((segment.startCivil - plan.civilStart) / MINUTE_MS);
        const to = Math.ceil(
          (segment.startCivil + segment.seconds * 1000 - plan.civilStart) / MINUTE_MS,
        );
        const code = STAGE[segment.level];
        for (let m = Math.max(0, from); m < Math.min(length, to); m++) series.stage[m] = code;
      }
    }

    // Wear: the whole day except off-wrist windows and the edges of unrecorded nights.
    for (let m = plan.wornFromMinute; m < plan.wornUntilMinute; m++) series.worn[m] = 1;
    for (const [from, to] of plan.offWrist) series.worn.fill(0, from, to);

    // MET per minute: sleep and rest, then exercise, then walking bouts.
    const met = new Float32Array(length).fill(1.2);
    const exerciseMinute = new Uint8Array(length);
    const cadence = new Float32Array(length);
    const rng = createRng(account.id, 'minutes', date);
    for (let m = 0; m < length; m++) if (series.stage[m]) met[m] = 0.95;
    for (const exercise of plan.exercises) {
      const from = Math.round((exercise.startCivil - plan.civilStart) / MINUTE_MS);
      const to = Math.round((exercise.endCivil - plan.civilStart) / MINUTE_MS);
      const profile = EXERCISE_PROFILE[exercise.kind];
      for (let m = Math.max(0, from); m < Math.min(length, to); m++) {
        const warm = Math.min(1, (m - from + 1) / 5, (to - m) / 4);
        exerciseMinute[m] = 1;
        met[m] = 1.5 + (profile.met - 1.5) * warm + rng.normal(0, 0.3);
        cadence[m] = profile.cadence[0] + rng.float(0, profile.cadence[1] - profile.cadence[0]);
        if (warm < 1) cadence[m] = (cadence[m] ?? 0) * warm;
      }
    }

    const awake = (m: number) =>
      series.worn[m] === 1 && series.stage[m] === 0 && exerciseMinute[m] === 0;
    const weekdayFactor = [0, 6].includes(weekdayOf(date))
      ? 0.88 + unitHash(account.id, 'weekend') * 0.3
      : 1;
    let target = account.habits.dailyStepsMean * weekdayFactor * Math.exp(rng.normal(0, 0.22));
    // A workout replaces only part of the day's everyday walking.
    const exerciseSteps = plan.exercises.reduce(
      (sum, ex) =>
        sum + ((ex.endCivil - ex.startCivil) / MINUTE_MS) * EXERCISE_PROFILE[ex.kind].cadence[0],
      0,
    );
    target = Math.max(2500, target - 0.5 * exerciseSteps);
    let walked = 0;
    for (let attempt = 0; attempt < 4000 && walked < target * 0.8; attempt++) {
      const start = rng.int(0, length - 1);
      if (!awake(start) || rng.next() > activityProfile(start)) continue;
      const boutLength = 1 + Math.floor(-Math.log(Math.max(rng.next(), 1e-6)) * 4);
      const pace = rng.float(88, 120);
      for (let m = start; m < Math.min(length, start + boutLength) && awake(m); m++) {
        cadence[m] = pace * rng.float(0.82, 1.0);
        met[m] = 2 + (pace - 80) * 0.06;
        walked += cadence[m] ?? 0;
      }
    }
    for (let attempt = 0; attempt < 3000 && walked < target; attempt++) {
      const m = rng.int(0, length - 1);
      if (!awake(m) || cadence[m] || rng.next() > activityProfile(m)) continue;
      cadence[m] = rng.float(4, 40);
      met[m] = 1.6;
      walked += cadence[m] ?? 0;
    }

    const rest = plan.restingRate;
    const maxRate = Math.min(HEART_RATE_CEILING, 220 - age);
    const reserve = maxRate - rest;
    const strideWalk = account.heightCm * 4.15;
    const strideRun = account.heightCm * 6.5;
    let hr = rest + 8;
    for (let m = 0; m < length; m++) {
      if (!series.worn[m]) {
        series.kcal[m] = bmrPerMinute;
        continue;
      }
      const stage = series.stage[m] as StageCode;
      const steps = stage ? 0 : Math.round(cadence[m] ?? 0);
      series.steps[m] = steps;
      series.distanceMm[m] = Math.round(steps * ((cadence[m] ?? 0) > 140 ? strideRun : strideWalk));
      if (steps > 60 && !exerciseMinute[m] && rng.chance(0.1)) series.floors[m] = 1;
      const minuteMet = Math.max(0.9, met[m] ?? 1.2);
      series.kcal[m] = Math.max(bmrPerMinute * 0.9, minuteMet * kcalPerMet);
      series.level[m] = stage ? 0 : minuteMet < 1.5 ? 0 : minuteMet < 3 ? 1 : minuteMet < 6 ? 2 : 3;
      let targetHr: number;
      if (stage) {
        targetHr = rest - 3 + SLEEP_HR_OFFSET[stage];
      } else {
        const circadian = 3 * Math.sin((2 * Math.PI * (m - 9 * 60)) / 1440);
        targetHr =
          rest + 8 + circadian + reserve * Math.min(0.92, Math.max(0, (minuteMet - 1.2) / 12));
      }
      hr = hr + (targetHr - hr) * 0.35 + rng.normal(0, 1.5);
      const bpm = clampHeartRate(Math.round(Math.min(hr, maxRate)));
      series.heartRate[m] = bpm;
      const fraction = (bpm - rest) / reserve;
      series.azmZone[m] = stage
        ? 0
        : fraction >= 0.85
          ? 3
          : fraction >= 0.6
            ? 2
            : fraction >= 0.4
              ? 1
              : 0;
    }
    return series;
  }

  private buildSummary(date: string, cutoffUtc: number): DaySummary {
    const series = this.day(date);
    const plan = this.plan(date);
    const maxRate = this.maxHeartRate(date);
    const bounds = [
      30,
      Math.round(maxRate * 0.5),
      Math.round(maxRate * 0.7),
      Math.round(maxRate * 0.85),
      220,
    ];
    const zoneNames: HeartZoneName[] = ['Out of Range', 'Fat Burn', 'Cardio', 'Peak'];
    const heartZones = zoneNames.map((name, index) => ({
      name,
      min: bounds[index] ?? 0,
      max: bounds[index + 1] ?? 220,
      minutes: 0,
      caloriesOut: 0,
    }));
    const summary: DaySummary = {
      date,
      wornMinutes: 0,
      steps: 0,
      distanceMm: 0,
      floors: 0,
      elevationMm: 0,
      caloriesOut: 0,
      caloriesBmr: 0,
      activityCalories: 0,
      minutesSedentary: 0,
      minutesLightlyActive: 0,
      minutesFairlyActive: 0,
      minutesVeryActive: 0,
      heartZones,
      azm: { fatBurn: 0, cardio: 0, peak: 0 },
    };
    if (!plan.member) return summary;
    const age = ageOn(this.account, date);
    const w = this.account.baselineWeightKg;
    const bmrPerMinute =
      (10 * w + 6.25 * this.account.heightCm - 5 * age + (this.account.sex === 'MALE' ? 5 : -161)) /
      1440;
    for (let m = 0; m < series.length; m++) {
      const utc = series.minuteUtc[m] ?? Number.NaN;
      if (Number.isNaN(utc) || utc >= cutoffUtc) continue;
      const kcal = series.kcal[m] ?? 0;
      summary.caloriesOut += kcal;
      summary.caloriesBmr += bmrPerMinute;
      if (!series.worn[m]) continue;
      summary.wornMinutes++;
      summary.steps += series.steps[m] ?? 0;
      summary.distanceMm += series.distanceMm[m] ?? 0;
      summary.floors += series.floors[m] ?? 0;
      const bpm = series.heartRate[m] ?? 0;
      const zone = heartZones.find((z) => bpm >= z.min && bpm < z.max) ?? heartZones[0];
      if (zone) {
        zone.minutes++;
        zone.caloriesOut += kcal;
      }
      const azm = series.azmZone[m];
      if (azm === 1) summary.azm.fatBurn++;
      else if (azm === 2) summary.azm.cardio++;
      else if (azm === 3) summary.azm.peak++;
      if (series.stage[m]) continue;
      const level = series.level[m];
      if (level === 0) summary.minutesSedentary++;
      else if (level === 1) summary.minutesLightlyActive++;
      else if (level === 2) summary.minutesFairlyActive++;
      else summary.minutesVeryActive++;
    }
    summary.elevationMm = summary.floors * FLOOR_HEIGHT_MM;
    summary.activityCalories = Math.max(0, summary.caloriesOut - summary.caloriesBmr);
    return summary;
  }
}

/** One floor is a 10 ft (3.048 m) climb, as Fitbit counts it. */
export const FLOOR_HEIGHT_MM = 3048;

/** The cached model of an account (models are pure, so simulators share them). */
export function wearableModel(account: SimulatedAccount): WearableModel {
  let model = models.get(account.id);
  if (!model) {
    model = new WearableModel(account);
    models.set(account.id, model);
  }
  return model;
}

/**
 * The last instant whose tracker data has reached the provider: trackers sync about every
 * 15 minutes, and some accounts have not synced for hours or days.
 */
export function trackerSyncedUntil(account: SimulatedAccount, nowMs: number): number {
  const quarter = 15 * MINUTE_MS;
  const lastSync = Math.floor((nowMs - account.wear.syncLagHours * 3_600_000) / quarter) * quarter;
  return Math.min(nowMs, lastSync + Math.floor(unitHash(account.id, 'sync') * 10) * MINUTE_MS);
}

export function clampHeartRate(bpm: number): number {
  return Math.min(HEART_RATE_CEILING, Math.max(HEART_RATE_FLOOR, bpm));
}

/**
 * A 19-digit numeric id whose first five digits are the day number, so a data point can be
 * found again from its id alone (Google `get`) without any stored state.
 */
export function dataPointId(dayNumber: number, kind: string, ...parts: string[]): string {
  return `${String(dayNumber).padStart(5, '0')}${deterministicDigits(14, kind, ...parts)}`;
}

/** The day number encoded in an id made by dataPointId(), or null. */
export function dayNumberOfId(id: string): number | null {
  return /^\d{19}$/.test(id) ? Number(id.slice(0, 5)) : null;
}

// --- helpers ---------------------------------------------------------------------------------

const models = new Map<string, WearableModel>();

const SLEEP_HR_OFFSET: Record<StageCode, number> = {
  0: 0,
  1: 6,
  2: -1,
  3: -4,
  4: 3,
  5: -1,
  6: 2,
  7: 6,
};

const EXERCISE_PROFILE: Record<ExerciseKind, { met: number; cadence: [number, number] }> = {
  RUN: { met: 9.8, cadence: [156, 172] },
  WALK: { met: 4.3, cadence: [106, 122] },
  BIKE: { met: 7.5, cadence: [0, 4] },
  WEIGHTS: { met: 5.0, cadence: [0, 12] },
  YOGA: { met: 2.8, cadence: [0, 4] },
};

const EXERCISE_DURATION: Record<ExerciseKind, (rng: ReturnType<typeof createRng>) => number> = {
  RUN: (rng) => rng.int(25, 60),
  WALK: (rng) => rng.int(30, 70),
  BIKE: (rng) => rng.int(40, 90),
  WEIGHTS: (rng) => rng.int(40, 70),
  YOGA: (rng) => rng.int(30, 60),
};

function isWornDay(account: SimulatedAccount, date: string): boolean {
  return unitHash(account.id, 'worn', date) >= account.wear.notWornDayRate;
}

function nightOff(account: SimulatedAccount, date: string): boolean {
  return unitHash(account.id, 'night-off', date) < account.wear.nightOffRate;
}

/** Planned main sleep ending on `date`: lights-out the evening before, later at weekends. */
function plannedMainSleep(account: SimulatedAccount, date: string) {
  const rng = createRng(account.id, 'sleep-plan', date);
  const weekend = [0, 6].includes(weekdayOf(date));
  const previousMidnight = civilMsOfDate(date) - DAY_MS;
  const bedtime = account.habits.bedtimeMinutes + (weekend ? 40 : 0) + rng.normal(0, 30);
  const minutes = Math.min(
    660,
    Math.max(240, account.habits.sleepHours * 60 + (weekend ? 45 : 0) + rng.normal(0, 35)),
  );
  const startCivil = previousMidnight + Math.round(bedtime) * MINUTE_MS + rng.int(0, 59) * 1000;
  const endCivil = startCivil + Math.round(minutes * 2) * 30_000;
  return { startCivil, endCivil };
}

/** Sleep cycles of about 90 minutes: deep sleep early in the night, REM late. */
function stagesHypnogram(
  rng: ReturnType<typeof createRng>,
  start: number,
  end: number,
): SleepSegment[] {
  const segments: SleepSegment[] = [];
  let t = start;
  const push = (level: SleepLevel, seconds: number) => {
    const s = Math.min(Math.round(seconds / 30) * 30, (end - t) / 1000);
    if (s <= 0) return;
    const last = segments[segments.length - 1];
    if (last && last.level === level) last.seconds += s;
    else segments.push({ startCivil: t, seconds: s, level });
    t += s * 1000;
  };
  push('wake', rng.int(2, 12) * 60);
  push('light', rng.int(8, 20) * 60);
  for (let cycle = 0; t < end; cycle++) {
    const lateness = Math.min(1, cycle / 4);
    push('light', rng.int(15, 30) * 60);
    push('deep', Math.max(0, (40 - 32 * lateness + rng.normal(0, 6)) * 60));
    push('light', rng.int(5, 15) * 60);
    push('rem', Math.max(3, 8 + 25 * lateness + rng.normal(0, 5)) * 60);
    if (rng.chance(0.7)) push('wake', rng.int(1, 5) * 60 + rng.int(0, 1) * 30);
  }
  return segments;
}

/** Classic (no stages) records: mostly asleep with short restless and awake spells. */
function classicHypnogram(
  rng: ReturnType<typeof createRng>,
  start: number,
  end: number,
): SleepSegment[] {
  const segments: SleepSegment[] = [];
  let t = start;
  while (t < end) {
    const roll = rng.next();
    const level: SleepLevel = roll < 0.8 ? 'asleep' : roll < 0.95 ? 'restless' : 'awake';
    const minutes = level === 'asleep' ? rng.int(8, 45) : rng.int(1, 4);
    const seconds = Math.min(minutes * 60, (end - t) / 1000);
    const last = segments[segments.length - 1];
    if (last && last.level === level) last.seconds += seconds;
    else segments.push({ startCivil: t, seconds, level });
    t += seconds * 1000;
  }
  return segments;
}

/** Relative likelihood of walking at a minute of the day (commute, lunch, evening peaks). */
function activityProfile(minute: number): number {
  const h = minute / 60;
  const bump = (centre: number, width: number) =>
    Math.exp(-((h - centre) ** 2) / (2 * width * width));
  return Math.min(1, 0.25 + 0.75 * (bump(8.3, 1) + bump(12.6, 1.1) + 0.9 * bump(17.8, 1.4)));
}

function fillMinuteClock(timeZone: string, civilStart: number, series: DaySeries): void {
  const startUtc = civilToUtcMs(timeZone, civilStart);
  const endUtc = civilToUtcMs(timeZone, civilStart + DAY_MS);
  // Offsets change at most once a day, so a 24-hour day with equal offsets at both ends has
  // one offset throughout (the fast path for every day but two a year).
  const uniform =
    endUtc - startUtc === DAY_MS &&
    utcOffsetSeconds(timeZone, startUtc) === utcOffsetSeconds(timeZone, endUtc - 1);
  for (let m = 0; m < series.length; m++) {
    if (uniform) {
      series.minuteUtc[m] = startUtc + m * MINUTE_MS;
      series.minuteOffset[m] = (civilStart - startUtc) / 1000;
      continue;
    }
    // DST change day: local times that do not exist get NaN, repeated ones keep the first.
    const civil = civilStart + m * MINUTE_MS;
    const utc = civilToUtcMs(timeZone, civil);
    const exists = toCivilMs(timeZone, utc) === civil;
    series.minuteUtc[m] = exists ? utc : Number.NaN;
    series.minuteOffset[m] = exists ? (civil - utc) / 1000 : 0;
  }
}

class LruCache<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}
  get(key: K): V | undefined {
    const value = this.map.get(key);
    if (value !== undefined) {
      this.map.delete(key);
      this.map.set(key, value);
    }
    return value;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }
}

const BREAKFASTS: readonly FoodItem[] = [
  food(81207, 'Oatmeal with Blueberries', 'bowl', 'bowls', 311, 1, 290, 52, 6, 8, 10, 150),
  food(81208, 'Scrambled Eggs', 'serving', 'servings', 304, 1, 200, 2, 15, 0, 14, 340),
  food(81209, 'Greek Yogurt with Honey', 'cup', 'cups', 91, 1, 220, 28, 5, 0, 17, 70),
  food(
    81210,
    'Whole Wheat Toast with Peanut Butter',
    'slice',
    'slices',
    226,
    2,
    380,
    36,
    20,
    6,
    15,
    420,
  ),
];
const LUNCHES: readonly FoodItem[] = [
  food(82301, 'Turkey Sandwich', 'sandwich', 'sandwiches', 17, 1, 430, 44, 14, 5, 30, 1100),
  food(82302, 'Chicken Caesar Salad', 'bowl', 'bowls', 311, 1, 470, 18, 30, 4, 34, 980),
  food(82303, 'Lentil Soup', 'cup', 'cups', 91, 2, 360, 60, 4, 16, 24, 1240),
  food(82304, 'Salmon Rice Bowl', 'bowl', 'bowls', 311, 1, 610, 70, 18, 4, 38, 760),
];
const DINNERS: readonly FoodItem[] = [
  food(83401, 'Spaghetti Bolognese', 'plate', 'plates', 251, 1, 690, 82, 22, 7, 36, 890),
  food(
    83402,
    'Grilled Salmon with Vegetables',
    'serving',
    'servings',
    304,
    1,
    520,
    20,
    28,
    6,
    46,
    420,
  ),
  food(83403, 'Chicken Stir Fry', 'serving', 'servings', 304, 1, 560, 48, 20, 5, 42, 1180),
  food(83404, 'Vegetable Curry with Rice', 'plate', 'plates', 251, 1, 640, 96, 18, 10, 16, 960),
];
const SNACKS: readonly FoodItem[] = [
  food(84501, 'Apple', 'serving', 'servings', 304, 1, 95, 25, 0.3, 4.4, 0.5, 2),
  food(84502, 'Almonds', 'oz', 'oz', 226, 1, 164, 6, 14, 3.5, 6, 0),
  food(84503, 'Banana', 'serving', 'servings', 304, 1, 105, 27, 0.4, 3.1, 1.3, 1),
  food(84504, 'Protein Bar', 'bar', 'bars', 17, 1, 210, 22, 8, 3, 20, 190),
];

function food(
  foodId: number,
  name: string,
  unitName: string,
  unitPlural: string,
  unitId: number,
  amount: number,
  calories: number,
  carbs: number,
  fat: number,
  fiber: number,
  protein: number,
  sodium: number,
): FoodItem {
  return {
    foodId,
    name,
    unitName,
    unitPlural,
    unitId,
    amount,
    calories,
    carbs,
    fat,
    fiber,
    protein,
    sodium,
  };
}
