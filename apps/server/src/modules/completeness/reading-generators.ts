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
 * `localMidnight` (UTC instant), lower at night, a daytime wave and a short workout peak.
 */
export function heartRateSeconds(
  owner: Owner,
  localMidnight: Date,
  utcOffsetMinutes: number,
): ReadingInput[] {
  const rows: ReadingInput[] = new Array(86_400);
  for (let second = 0; second < 86_400; second += 1) {
    const hour = second / 3600;
    const awake = hour >= 7 && hour < 23;
    const base = awake ? 72 + 8 * Math.sin((hour - 7) / 2.5) : 56 + 3 * Math.sin(hour * 2);
    const workout = hour >= 18 && hour < 18.75 ? 55 * Math.sin(((hour - 18) / 0.75) * Math.PI) : 0;
    const value = Math.round(base + workout + ((second * 7919) % 7) - 3);
    rows[second] = hr(
      owner,
      new Date(localMidnight.getTime() + second * 1000),
      utcOffsetMinutes,
      value,
    );
  }
  return rows;
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
