/**
 * The glucose physiology behind the Dexcom data. Glucose at any instant is a pure function
 * of (account, time): a fasting baseline with a dawn rise, slow and fast smooth noise, meal
 * responses (peaking about an hour after eating), insulin dips when a bolus over-covers a
 * meal, exercise dips and occasional low episodes. Sensor sessions (10 or 15 days, warm-up,
 * early failures, days without a sensor) are laid out once per account from its start day.
 */
import type { DexcomAccount, DisplayDevice } from './accounts';
import { gaussian, hashParts, seededRandom, valueNoise } from '../common/prng';
import {
  DAY_MS,
  HOUR_MS,
  localDayIndex,
  localToEpoch,
  MINUTE_MS,
  utcOffsetMinutes,
} from '../common/civil-time';

export const READING_MS = 5 * MINUTE_MS;

export type SensorSession = {
  index: number;
  /** Sensor inserted. */
  start: number;
  /** First reading (after warm-up). */
  readingsStart: number;
  /** No readings from here on (planned end or early failure). */
  end: number;
  failedEarly: boolean;
  device: DisplayDevice;
  transmitterIndex: number;
  transmitterStart: number;
  calibrationAt: number | null;
};

export type Meal = { at: number; carbs: number; bolusFactor: number };
export type DayPlan = {
  meals: Meal[];
  exercise: { at: number; minutes: number; intensity: 'light' | 'medium' | 'heavy' } | null;
  low: { at: number; depth: number; widthMs: number } | null;
  longActing: { at: number; units: number } | null;
};

export function createGlucoseModel(account: DexcomAccount) {
  const plans = new Map<number, DayPlan>();
  let sessions: SensorSession[] = [];
  let sessionsOrigin = Number.NaN;

  /** Sensor sessions from the data start up to at least `until`. */
  function sessionsUntil(firstDay: number, until: number): SensorSession[] {
    const origin = localToEpoch(account.timeZone, firstDay, 9 * 60);
    if (origin !== sessionsOrigin) {
      sessionsOrigin = origin;
      sessions = [];
    }
    while (
      sessions.length === 0 ||
      (sessions[sessions.length - 1] as SensorSession).start <= until
    ) {
      sessions.push(nextSession(sessions[sessions.length - 1], origin));
    }
    return sessions;
  }

  function nextSession(previous: SensorSession | undefined, origin: number): SensorSession {
    const index = previous ? previous.index + 1 : 0;
    const random = seededRandom(account.id, 'session', index);
    let start = origin + Math.floor(random() * 45 * MINUTE_MS);
    if (previous) {
      start = previous.end + (15 + random() * 30) * MINUTE_MS;
      if (random() < account.notWornChance) start += (1.5 + random() * 5) * DAY_MS;
    } else {
      random();
    }
    const lengthDays =
      account.generation === 'g715day' ? 15.5 : account.generation === 'g7' ? 10.5 : 10;
    const failedEarly = random() < 0.07;
    const length = failedEarly ? (1 + random() * (lengthDays - 2)) * DAY_MS : lengthDays * DAY_MS;
    const warmUp = account.generation === 'g6' ? 2 * HOUR_MS : 30 * MINUTE_MS;
    // G6 transmitters last about 90 days (9 sensors); every G7 sensor has its own.
    const perTransmitter = account.generation === 'g6' ? 9 : 1;
    const transmitterIndex = Math.floor(index / perTransmitter);
    const transmitterStart =
      previous && previous.transmitterIndex === transmitterIndex
        ? previous.transmitterStart
        : start;
    const readingsStart = start + warmUp + Math.floor(random() * 60) * 1000;
    const calibrates = index === 0 || random() < account.calibrationChance;
    return {
      index,
      start,
      readingsStart,
      end: start + length,
      failedEarly,
      device: account.displayDevices[index % account.displayDevices.length] as DisplayDevice,
      transmitterIndex,
      transmitterStart,
      calibrationAt: calibrates ? readingsStart + (1 + random() * 3) * HOUR_MS : null,
    };
  }

  function plan(localDay: number): DayPlan {
    let dayPlan = plans.get(localDay);
    if (!dayPlan) {
      if (plans.size > 5000) plans.clear();
      dayPlan = makePlan(localDay);
      plans.set(localDay, dayPlan);
    }
    return dayPlan;
  }

  function makePlan(localDay: number): DayPlan {
    const random = seededRandom(account.id, 'plan', localDay);
    const at = (minute: number) => localToEpoch(account.timeZone, localDay, minute);
    const meal = (from: number, span: number, carbsMin: number, carbsSpan: number): Meal => ({
      at: at(from + Math.floor(random() * span)),
      carbs: Math.round(carbsMin + random() * carbsSpan),
      bolusFactor: account.glucose.usesInsulin ? Math.max(0.6, 1 + gaussian(random) * 0.18) : 0,
    });
    const meals = [meal(420, 90, 25, 40), meal(720, 90, 35, 45), meal(1080, 120, 45, 55)];
    if (random() < 0.5) meals.push(meal(900, 90, 12, 20));
    meals.sort((a, b) => a.at - b.at);
    const exercise =
      random() < 0.3
        ? {
            at: at(1020 + Math.floor(random() * 60)),
            minutes: 20 + Math.floor(random() * 41),
            intensity: (['light', 'medium', 'heavy'] as const)[Math.floor(random() * 3)] ?? 'light',
          }
        : null;
    const low =
      random() < account.glucose.lowDays
        ? {
            at: at(Math.floor(random() * 1440)),
            depth: 35 + random() * 30,
            widthMs: (35 + random() * 35) * MINUTE_MS,
          }
        : null;
    const longActing = account.glucose.usesInsulin
      ? { at: at(1290 + Math.floor(random() * 30)), units: 16 + (hashParts(account.id) % 9) }
      : null;
    return { meals, exercise, low, longActing };
  }

  const seeds = {
    slow: hashParts(account.id, 'slow'),
    fast: hashParts(account.id, 'fast'),
    days: hashParts(account.id, 'days'),
  };

  /** Unclamped sensor glucose (mg/dL) at an instant. */
  function glucoseAt(t: number): number {
    const g = account.glucose;
    const offset = utcOffsetMinutes(account.timeZone, t);
    const localHour = ((((t + offset * MINUTE_MS) % DAY_MS) + DAY_MS) % DAY_MS) / HOUR_MS;
    let value =
      g.baseline +
      g.dawn * Math.exp(-(((localHour - 6.5) / 1.6) ** 2)) +
      14 * valueNoise(seeds.slow, t / (4 * HOUR_MS)) +
      5 * valueNoise(seeds.fast, t / (30 * MINUTE_MS)) +
      9 * valueNoise(seeds.days, t / (2 * DAY_MS));
    const today = localDayIndex(account.timeZone, t);
    for (const day of [today - 1, today]) {
      const p = plan(day);
      for (const meal of p.meals) {
        const minutes = (t - meal.at) / MINUTE_MS;
        if (minutes <= 0 || minutes > 420) continue;
        const amplitude = meal.carbs * g.mealRise;
        const carbPeak = g.usesInsulin ? 55 : 70;
        value += amplitude * gammaShape(minutes, carbPeak);
        // Equal-area insulin action: a bolusFactor above 1 leaves a dip 3–4 hours later.
        if (g.usesInsulin)
          value -= amplitude * meal.bolusFactor * (carbPeak / 90) * gammaShape(minutes, 90);
      }
      if (p.exercise) {
        const minutes = (t - p.exercise.at) / MINUTE_MS;
        if (minutes > 0 && minutes < 300)
          value -= p.exercise.minutes * 0.7 * gammaShape(minutes, 45);
      }
      if (p.low) value -= p.low.depth * Math.exp(-(((t - p.low.at) / p.low.widthMs) ** 2));
    }
    return value;
  }

  return { sessionsUntil, plan, glucoseAt };
}

export type GlucoseModel = ReturnType<typeof createGlucoseModel>;

/** (τ/T)·e^(1−τ/T): 0 at τ=0, peak 1 at τ=T, then a long tail. */
function gammaShape(minutes: number, peak: number): number {
  const x = minutes / peak;
  return x * Math.exp(1 - x);
}
