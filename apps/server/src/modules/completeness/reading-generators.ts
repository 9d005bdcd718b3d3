import type { ReadingInput } from '../sync/readings.service';

/**
 * Synthetic readings with known completeness (demo data, tests, bench): minute heart rate
 * for a given number of worn minutes, Dexcom readings every 5 minutes, blood pressure,
 * weight, daily steps and sleep sessions, shaped as sync stores them.
 */
type Owner = { participantId: number; teamId: number };
const MINUTE = 60_000;

/** `minutes` worn minutes from `start` (UTC instant), one sample each; `extraSamples` adds a second sample to the first minutes. */
export function heartRateMinutes(
  owner: Owner,
  start: Date,
  minutes: number,
  utcOffsetMinutes: number,
  extraSamples = 0,
): ReadingInput[] {
  const rows: ReadingInput[] = [];
  for (let minute = 0; minute < minutes; minute += 1) {
    const at = start.getTime() + minute * MINUTE;
    rows.push(hr(owner, new Date(at), utcOffsetMinutes, 60 + (minute % 40)));
    if (minute < extraSamples)
      rows.push(hr(owner, new Date(at + 30_000), utcOffsetMinutes, 61 + (minute % 40)));
  }
  return rows;
}

/**
 * A whole local day of heart rate at Fitbit's 1-second detail: 86,400 samples from
 * `localMidnight` (UTC instant). Beat-to-beat variation is smooth (decision 0172): a slow
 * baseline plus AR(1) noise (φ = 0.95, about ±1 bpm), seeded, so consecutive seconds differ
 * by a beat or two, never a sawtooth. The baseline is `minuteBpm` when given — the minute
 * heart rate of the simulated account the sync also samples (0 = not worn: the nearest
 * worn minute), interpolated across each minute as the simulator does, so the synced
 * samples that replace some seconds agree with their neighbours — else a circadian curve
 * (about 57 bpm asleep, 70 awake, an evening walk to about 100).
 */
export function heartRateSeconds(
  owner: Owner,
  localMidnight: Date,
  utcOffsetMinutes: number,
  minuteBpm?: ArrayLike<number>,
): ReadingInput[] {
  const baseline = secondBaseline(minuteBpm);
  const random = seededRandom(owner.participantId * 7919 + 86_400);
  const rows: ReadingInput[] = new Array(86_400);
  let noise = 0;
  for (let second = 0; second < 86_400; second += 1) {
    noise = 0.95 * noise + gaussian(random) * 0.35;
    const value = Math.min(190, Math.max(40, Math.round(baseline(second) + noise)));
    rows[second] = hr(
      owner,
      new Date(localMidnight.getTime() + second * 1000),
      utcOffsetMinutes,
      value,
    );
  }
  return rows;
}

/** The slow part of the day's heart rate at each second (see heartRateSeconds). */
function secondBaseline(minuteBpm?: ArrayLike<number>): (second: number) => number {
  const worn = minuteBpm ? Array.from(minuteBpm, Number).filter((bpm) => bpm > 0).length : 0;
  if (minuteBpm && worn > 0) {
    // Unworn minutes take the nearest worn one's rate (forward, then backward fill).
    const filled = Array.from({ length: 1441 }, (_, m) =>
      Number(minuteBpm[Math.min(m, minuteBpm.length - 1)] ?? 0),
    );
    for (let m = 1; m < filled.length; m += 1) if (!filled[m]) filled[m] = filled[m - 1]!;
    for (let m = filled.length - 2; m >= 0; m -= 1) if (!filled[m]) filled[m] = filled[m + 1]!;
    return (second) => {
      const minute = Math.floor(second / 60);
      const bpm = filled[minute]!;
      return bpm + ((filled[minute + 1]! - bpm) * (second % 60)) / 60;
    };
  }
  return (second) => {
    const hour = second / 3600;
    // 57 bpm at 03:00, 70 by mid-afternoon: one smooth daily cosine.
    const circadian = 63.5 - 6.5 * Math.cos(((hour - 3) / 24) * 2 * Math.PI);
    // A 40-minute evening walk, eased in and out.
    const walk =
      hour >= 18 && hour < 18 + 2 / 3 ? 30 * Math.sin(((hour - 18) / (2 / 3)) * Math.PI) ** 2 : 0;
    return circadian + walk;
  };
}

/** mulberry32: a small seeded PRNG, so the demo day is the same on every start. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A standard normal draw (Box–Muller). */
function gaussian(random: () => number): number {
  const u = Math.max(random(), Number.EPSILON);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function hr(owner: Owner, recordedAt: Date, utcOffsetMinutes: number, value: number): ReadingInput {
  return {
    ...owner,
    brand: 'Fitbit',
    metricKey: 'heart_rate',
    recordedAt,
    utcOffsetMinutes,
    value,
    upstream: 'google-health',
  };
}

/** `count` Dexcom EGVs every 5 minutes from `start`. */
export function cgmReadings(
  owner: Owner,
  start: Date,
  count: number,
  utcOffsetMinutes: number,
): ReadingInput[] {
  return Array.from({ length: count }, (_, index) => ({
    ...owner,
    brand: 'Dexcom' as const,
    metricKey: 'egv',
    recordedAt: new Date(start.getTime() + index * 5 * MINUTE),
    utcOffsetMinutes,
    value: 100 + ((index * 7) % 60),
    upstream: 'dexcom' as const,
  }));
}

/** One Omron blood-pressure reading (systolic, diastolic, pulse) at `at`. */
export function bloodPressure(owner: Owner, at: Date, utcOffsetMinutes: number): ReadingInput[] {
  const base = {
    ...owner,
    brand: 'Omron' as const,
    recordedAt: at,
    utcOffsetMinutes,
    upstream: 'omron' as const,
  };
  return [
    { ...base, metricKey: 'systolic', value: 121 },
    { ...base, metricKey: 'diastolic', value: 79 },
    { ...base, metricKey: 'pulse', value: 66 },
  ];
}

/** One weight reading (kg) at `at`. */
export function weight(
  owner: Owner,
  at: Date,
  utcOffsetMinutes: number,
  brand: 'Omron' | 'Fitbit' = 'Omron',
): ReadingInput {
  return {
    ...owner,
    brand,
    metricKey: 'weight',
    recordedAt: at,
    utcOffsetMinutes,
    value: 72.5,
    upstream: brand === 'Omron' ? 'omron' : 'google-health',
  };
}

/** A daily metric of civil date `day` (YYYY-MM-DD): stored at 00:00 UTC without an offset. */
export function dailyValue(
  owner: Owner,
  day: string,
  metricKey: string,
  value: number,
): ReadingInput {
  return {
    ...owner,
    brand: 'Fitbit',
    metricKey,
    recordedAt: new Date(`${day}T00:00:00Z`),
    utcOffsetMinutes: null,
    value,
    upstream: 'google-health',
  };
}

/** A sleep session from `start` to `end` (minutes asleep = its length). */
export function sleepSession(
  owner: Owner,
  start: Date,
  end: Date,
  utcOffsetMinutes: number,
): ReadingInput {
  return {
    ...owner,
    brand: 'Fitbit',
    metricKey: 'sleep_duration',
    recordedAt: start,
    endAt: end,
    utcOffsetMinutes,
    value: Math.round((end.getTime() - start.getTime()) / MINUTE),
    upstream: 'google-health',
  };
}
