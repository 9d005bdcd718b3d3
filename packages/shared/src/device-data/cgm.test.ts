import { describe, expect, it } from 'vitest';
import { computeCgmSummary, glucoseIn, percentile, rangeBandOf, type CgmPoint } from './cgm';

/**
 * A fixed two weeks of readings, hand-computed. Every day has 288 readings at 5-minute
 * steps from 00:00 UTC in this order: 2 × 50, 8 × 60, 200 × 120, 58 × 200, 20 × 300 mg/dL.
 *
 *   time in range: 2/288 < 54, 8/288 54–69, 200/288 70–180, 58/288 181–250, 20/288 > 250
 *   mean = (2·50 + 8·60 + 200·120 + 58·200 + 20·300) / 288 = 42180 / 288 = 146.4583 mg/dL
 *   E[x²] = (2·2500 + 8·3600 + 200·14400 + 58·40000 + 20·90000) / 288 = 7033800 / 288
 *   SD = √(7033800/288 − 146.4583²) = √2972.87 = 54.5241; CV = 54.5241 / 146.4583 = 37.228 %
 *   GMI = 3.31 + 0.02392 × 146.4583 = 6.8133 %
 */
const START = Date.UTC(2026, 10, 1);
const DAY = 86_400_000;
const DAY_VALUES = [
  ...Array<number>(2).fill(50),
  ...Array<number>(8).fill(60),
  ...Array<number>(200).fill(120),
  ...Array<number>(58).fill(200),
  ...Array<number>(20).fill(300),
];

function days(dayIndexes: readonly number[], offset: number | null = null): CgmPoint[] {
  return dayIndexes.flatMap((day) =>
    DAY_VALUES.map((value, slot) => ({
      at: START + day * DAY + slot * 300_000,
      utcOffsetMinutes: offset,
      value,
    })),
  );
}
const range = (n: number) => Array.from({ length: n }, (_, i) => i);
const period = (dayCount: number) => ({
  start: new Date(START),
  end: new Date(START + dayCount * DAY),
});

describe('computeCgmSummary on the hand-computed fortnight', () => {
  const summary = computeCgmSummary(days(range(14)), period(14));

  it('counts readings and full sensor usage', () => {
    expect(summary.days).toBe(14);
    expect(summary.readings).toBe(4032);
    expect(summary.expectedReadings).toBe(4032);
    expect(summary.sensorUsage).toBe(1);
  });

  it('splits time in range five ways', () => {
    expect(summary.timeInRange.veryLow).toBeCloseTo(2 / 288, 10);
    expect(summary.timeInRange.low).toBeCloseTo(8 / 288, 10);
    expect(summary.timeInRange.inRange).toBeCloseTo(200 / 288, 10);
    expect(summary.timeInRange.high).toBeCloseTo(58 / 288, 10);
    expect(summary.timeInRange.veryHigh).toBeCloseTo(20 / 288, 10);
    expect(summary.below70).toBeCloseTo(10 / 288, 10);
    expect(summary.above180).toBeCloseTo(78 / 288, 10);
  });

  it('has the mean, SD, CV and GMI computed by hand', () => {
    expect(summary.meanMgdl).toBeCloseTo(146.4583, 4);
    expect(summary.sdMgdl).toBeCloseTo(54.5241, 4);
    expect(summary.cv).toBeCloseTo(37.2284, 3);
    expect(summary.gmi).toBeCloseTo(6.8133, 4);
  });

  it('builds AGP bins by time of day and one trace per day', () => {
    // 00:00–00:15: 50, 50, 60 on each of 14 days → 28 × 50 then 14 × 60.
    expect(summary.agp[0]).toEqual({ minute: 0, p5: 50, p25: 50, p50: 50, p75: 60, p95: 60 });
    // 12:00–12:15 is slots 144–146: all 120.
    expect(summary.agp[48]).toEqual({
      minute: 720,
      p5: 120,
      p25: 120,
      p50: 120,
      p75: 120,
      p95: 120,
    });
    expect(summary.agp.every((bin) => bin !== null)).toBe(true);
    expect(summary.daily.map((day) => day.date)).toEqual(
      range(14).map((d) => new Date(START + d * DAY).toISOString().slice(0, 10)),
    );
    expect(summary.daily[0]!.points).toHaveLength(288);
    expect(summary.daily[0]!.points[0]).toEqual([0, 50]);
  });
});

describe('GMI needs 14 days and 70 % wear', () => {
  it('is "not enough data" (null) with 9 of 14 days worn (64 %)', () => {
    const summary = computeCgmSummary(days(range(9)), period(14));
    expect(summary.sensorUsage).toBeCloseTo(9 / 14, 10);
    expect(summary.meanMgdl).toBeCloseTo(146.4583, 4);
    expect(summary.gmi).toBeNull();
  });

  it('is given with 10 of 14 days worn (71 %)', () => {
    const summary = computeCgmSummary(days(range(10)), period(14));
    expect(summary.sensorUsage).toBeCloseTo(10 / 14, 10);
    expect(summary.gmi).toBeCloseTo(6.8133, 4);
  });

  it('is null for a 7-day period even with full wear', () => {
    const summary = computeCgmSummary(days(range(7)), period(7));
    expect(summary.sensorUsage).toBe(1);
    expect(summary.gmi).toBeNull();
  });

  it('has no statistics without readings', () => {
    const summary = computeCgmSummary([], period(14));
    expect(summary).toMatchObject({
      readings: 0,
      sensorUsage: 0,
      meanMgdl: null,
      cv: null,
      gmi: null,
    });
    expect(summary.agp.every((bin) => bin === null)).toBe(true);
  });
});

describe('local time and units', () => {
  it('bins by the participant local time', () => {
    // At UTC−5 the 00:00 UTC readings (50, 50, 60) fall at 19:00 local.
    const summary = computeCgmSummary(days([0], -300), period(1));
    expect(summary.agp[19 * 4]).toMatchObject({ minute: 19 * 60, p50: 50 });
    expect(summary.daily.map((day) => day.date)).toEqual(['2026-10-31', '2026-11-01']);
  });

  it('ignores readings outside the period and uses the consensus band edges', () => {
    const points = [...days([0]), { at: START - 1, utcOffsetMinutes: null, value: 400 }];
    expect(computeCgmSummary(points, period(1)).readings).toBe(288);
    expect([53, 54, 69, 70, 180, 181, 250, 251].map(rangeBandOf)).toEqual([
      'veryLow',
      'low',
      'low',
      'inRange',
      'inRange',
      'high',
      'high',
      'veryHigh',
    ]);
  });

  it('converts to mmol/L with one decimal and interpolates percentiles', () => {
    expect(glucoseIn('mmol/L', 180)).toBe(10);
    expect(glucoseIn('mmol/L', 70)).toBe(3.9);
    expect(glucoseIn('mg/dL', 146.46)).toBe(146);
    expect(percentile([1, 2, 3, 4], 0.5)).toBe(2.5);
  });
});
