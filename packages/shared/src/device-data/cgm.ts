/**
 * CGM summary statistics as in every AGP report (international consensus; reference
 * device-data.md §3; decision 0056): five-way time in range, mean, GMI, coefficient of
 * variation, sensor usage, the AGP percentile bands by time of day and daily traces.
 * Pure, so the server, the web page and the tests compute the same numbers.
 */

export const GLUCOSE_UNITS = ['mg/dL', 'mmol/L'] as const;
export type GlucoseUnit = (typeof GLUCOSE_UNITS)[number];
/** mg/dL per mmol/L (glucose molar mass 180.16 g/mol ÷ 10). */
export const MGDL_PER_MMOLL = 18.016;

/** A glucose value in the chosen unit: mg/dL as integers, mmol/L to one decimal. */
export function glucoseIn(unit: GlucoseUnit, mgdl: number): number {
  return unit === 'mg/dL' ? Math.round(mgdl) : Math.round((mgdl / MGDL_PER_MMOLL) * 10) / 10;
}

/** Readings a CGM takes per day (one every 5 minutes). */
export const CGM_READINGS_PER_DAY = 288;
/** GMI needs this many days and this much sensor wear (consensus). */
export const GMI_MIN_DAYS = 14;
export const GMI_MIN_WEAR = 0.7;
export const CGM_NOT_ENOUGH_DATA = 'not enough data';

export const TIME_IN_RANGE_BANDS = [
  {
    key: 'veryLow',
    label: '< 54 mg/dL',
    target: '< 1 %',
    targetOk: (share: number) => share < 0.01,
  },
  { key: 'low', label: '54–69 mg/dL', target: '< 4 % below 70', targetOk: null },
  {
    key: 'inRange',
    label: '70–180 mg/dL',
    target: '> 70 %',
    targetOk: (share: number) => share > 0.7,
  },
  { key: 'high', label: '181–250 mg/dL', target: '< 25 % above 180', targetOk: null },
  {
    key: 'veryHigh',
    label: '> 250 mg/dL',
    target: '< 5 %',
    targetOk: (share: number) => share < 0.05,
  },
] as const;
export type TimeInRangeKey = (typeof TIME_IN_RANGE_BANDS)[number]['key'];

/** The band of a value in mg/dL (Dexcom sends whole numbers; boundaries as the consensus). */
export function rangeBandOf(mgdl: number): TimeInRangeKey {
  if (mgdl < 54) return 'veryLow';
  if (mgdl < 70) return 'low';
  if (mgdl <= 180) return 'inRange';
  if (mgdl <= 250) return 'high';
  return 'veryHigh';
}

/** One EGV: the UTC instant (ms), the participant's offset then (minutes, null = unknown), mg/dL. */
export type CgmPoint = { at: number; utcOffsetMinutes: number | null; value: number };

/** Minutes per AGP bin (96 bins a day). */
export const AGP_BIN_MINUTES = 15;

export type CgmSummary = {
  days: number;
  readings: number;
  expectedReadings: number;
  /** Share 0–1 of expected readings present (capped at 1). */
  sensorUsage: number;
  /** Share 0–1 of readings per band; all zero without readings. */
  timeInRange: Record<TimeInRangeKey, number>;
  /** Combined shares the consensus also targets: < 70 under 4 %, > 180 under 25 %. */
  below70: number;
  above180: number;
  meanMgdl: number | null;
  /** Population standard deviation, mg/dL. */
  sdMgdl: number | null;
  /** Coefficient of variation, percent. */
  cv: number | null;
  /** Glucose management indicator, percent; null = not enough data. */
  gmi: number | null;
  /** AGP: per time-of-day bin (local time), percentiles 5/25/50/75/95 in mg/dL, or null when empty. */
  agp: Array<{
    minute: number;
    p5: number;
    p25: number;
    p50: number;
    p75: number;
    p95: number;
  } | null>;
  /** Readings per local day: minute of the day and mg/dL. */
  daily: Array<{ date: string; points: Array<[minute: number, mgdl: number]> }>;
};

/** Linear-interpolated percentile of sorted values (the usual "type 7" definition). */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of no values');
  const index = (sorted.length - 1) * p;
  const lower = Math.floor(index);
  const upper = Math.ceil(index);
  return sorted[lower]! + (sorted[upper]! - sorted[lower]!) * (index - lower);
}

/**
 * The summary of the readings in [start, end). Readings outside the period are ignored.
 * The local time of a reading is its instant plus its offset (UTC when unknown).
 */
export function computeCgmSummary(
  points: readonly CgmPoint[],
  period: { start: Date; end: Date },
): CgmSummary {
  const from = period.start.getTime();
  const to = period.end.getTime();
  const inPeriod = points.filter(
    (point) => point.at >= from && point.at < to && Number.isFinite(point.value),
  );
  const days = (to - from) / 86_400_000;
  const expectedReadings = Math.round(days * CGM_READINGS_PER_DAY);
  const readings = inPeriod.length;
  const sensorUsage = expectedReadings > 0 ? Math.min(1, readings / expectedReadings) : 0;

  const counts: Record<TimeInRangeKey, number> = {
    veryLow: 0,
    low: 0,
    inRange: 0,
    high: 0,
    veryHigh: 0,
  };
  let sum = 0;
  for (const point of inPeriod) {
    counts[rangeBandOf(point.value)] += 1;
    sum += point.value;
  }
  const share = (count: number) => (readings > 0 ? count / readings : 0);
  const timeInRange = Object.fromEntries(
    Object.entries(counts).map(([key, count]) => [key, share(count)]),
  ) as Record<TimeInRangeKey, number>;

  let meanMgdl: number | null = null;
  let sdMgdl: number | null = null;
  let cv: number | null = null;
  if (readings > 0) {
    meanMgdl = sum / readings;
    const mean = meanMgdl;
    const variance =
      inPeriod.reduce((total, point) => total + (point.value - mean) ** 2, 0) / readings;
    sdMgdl = Math.sqrt(variance);
    cv = (sdMgdl / meanMgdl) * 100;
  }
  const gmi =
    meanMgdl !== null && days >= GMI_MIN_DAYS && sensorUsage >= GMI_MIN_WEAR
      ? 3.31 + 0.02392 * meanMgdl
      : null;

  const bins: number[][] = Array.from({ length: (24 * 60) / AGP_BIN_MINUTES }, () => []);
  const byDay = new Map<string, Array<[number, number]>>();
  for (const point of inPeriod) {
    const local = new Date(point.at + (point.utcOffsetMinutes ?? 0) * 60_000);
    const minute = local.getUTCHours() * 60 + local.getUTCMinutes();
    bins[Math.floor(minute / AGP_BIN_MINUTES)]!.push(point.value);
    const date = local.toISOString().slice(0, 10);
    const day = byDay.get(date) ?? [];
    day.push([minute, point.value]);
    byDay.set(date, day);
  }
  const agp = bins.map((values, index) => {
    if (values.length === 0) return null;
    const sorted = [...values].sort((a, b) => a - b);
    return {
      minute: index * AGP_BIN_MINUTES,
      p5: percentile(sorted, 0.05),
      p25: percentile(sorted, 0.25),
      p50: percentile(sorted, 0.5),
      p75: percentile(sorted, 0.75),
      p95: percentile(sorted, 0.95),
    };
  });
  const daily = [...byDay.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([date, dayPoints]) => ({ date, points: dayPoints.sort((a, b) => a[0] - b[0]) }));

  return {
    days,
    readings,
    expectedReadings,
    sensorUsage,
    timeInRange,
    below70: timeInRange.veryLow + timeInRange.low,
    above180: timeInRange.high + timeInRange.veryHigh,
    meanMgdl,
    sdMgdl,
    cv,
    gmi,
    agp,
    daily,
  };
}
