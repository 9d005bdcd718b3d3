import { describe, expect, it } from 'vitest';
import { chartSummary, chartTable, withAria, zoomAfterKey } from './chart-data';
import { heartRateBounds, timeAxisChart, valueAxis } from './time-axis-chart';

const at = (time: string) => Date.parse(`2026-03-01T${time}Z`);

describe('chart axes', () => {
  it('counts and durations start at zero', () => {
    const axis = valueAxis({ unit: 'h', axis: 'zero' });
    expect(axis).toMatchObject({ min: 0, scale: false });
    const chart = timeAxisChart({ unit: 'steps', axis: 'zero', series: [] });
    expect(chart.yAxis).toMatchObject({ min: 0, scale: false });
  });

  it('heart rate: whole tens with room around the data and ticks on whole bpm', () => {
    // The resting heart rate: 56–59 bpm drawn on 56–59 with half-bpm ticks.
    expect(heartRateBounds({ min: 56, max: 59 })).toEqual({ min: 50, max: 70 });
    expect(heartRateBounds({ min: 63, max: 127 })).toEqual({ min: 50, max: 140 });
    expect(heartRateBounds({ min: 3, max: 8 })).toEqual({ min: 0, max: 20 });
    const axis = valueAxis({ unit: 'bpm', axis: 'heart-rate' }) as {
      min: (extent: { min: number }) => number;
      max: (extent: { max: number }) => number;
      minInterval: number;
    };
    expect(axis.min({ min: 56 })).toBe(50);
    expect(axis.max({ max: 59 })).toBe(70);
    expect(axis.minInterval).toBe(1);
  });

  it('other axes still fit the data', () => {
    expect(valueAxis({ unit: 'lbs' })).toMatchObject({ scale: true });
  });
});

describe('chart data as a table and a summary', () => {
  const option = timeAxisChart({
    unit: 'bpm',
    series: [
      {
        name: 'Heart rate',
        points: [
          [at('08:00:00'), 60],
          [at('08:00:01'), 62],
          [at('08:00:02'), null],
        ],
      },
      { name: 'Resting', points: [[at('08:00:01'), 55]] },
    ],
  });

  it('a time chart: one row per instant, one column per series, empty where a series has none', () => {
    const table = chartTable({ ...option, useUTC: true });
    expect(table.columns.map((c) => c.header)).toEqual([
      'Time',
      'Heart rate (bpm)',
      'Resting (bpm)',
    ]);
    expect(table.rows).toEqual([
      { x: '08:00:00', s0: 60, s1: null },
      { x: '08:00:01', s0: 62, s1: 55 },
      { x: '08:00:02', s0: null, s1: null },
    ]);
  });

  it('a category chart and typed-array data (the one-day chart) read the same way', () => {
    expect(
      chartTable({
        xAxis: { type: 'category', data: ['Mon', 'Tue'] },
        yAxis: { type: 'value', name: 'min' },
        series: [{ name: 'Peak', data: [3, 4] }],
      }).rows,
    ).toEqual([
      { x: 'Mon', s0: 3 },
      { x: 'Tue', s0: 4 },
    ]);
    const typed = chartTable({
      useUTC: true,
      xAxis: { type: 'time' },
      yAxis: [{ type: 'value', name: 'BPM' }],
      series: [
        { name: 'Heart rate', data: new Float64Array([at('00:00:00'), 61, at('00:00:01'), 62]) },
      ],
    });
    expect(typed.rows).toEqual([
      { x: '00:00:00', s0: 61 },
      { x: '00:00:01', s0: 62 },
    ]);
  });

  it('the summary names each series, its span, lowest, highest and mean', () => {
    expect(chartSummary({ ...option, useUTC: true }, 'Heart rate on 2026-03-01')).toBe(
      'Heart rate on 2026-03-01. Heart rate: 2 values from 08:00:00 to 08:00:02, lowest 60 bpm, highest 62 bpm, mean 61 bpm. Resting: 1 value from 08:00:01 to 08:00:01, lowest 55 bpm, highest 55 bpm, mean 55 bpm.',
    );
  });

  it("turns ECharts' aria on with the summary as the description", () => {
    const described = withAria(option, 'Heart rate') as {
      aria: { enabled: boolean; label: { description: string } };
    };
    expect(described.aria.enabled).toBe(true);
    expect(described.aria.label.description).toMatch(/^Heart rate\. Heart rate: 2 values/);
    // The page's option itself is left as it was.
    expect((option as { aria?: unknown }).aria).toBeUndefined();
  });
});

describe('keyboard zoom and pan', () => {
  it('+ halves the window about its centre, - doubles it, arrows move a quarter, 0 shows all', () => {
    expect(zoomAfterKey('+', { start: 0, end: 100 })).toEqual({ start: 25, end: 75 });
    expect(zoomAfterKey('-', { start: 25, end: 75 })).toEqual({ start: 0, end: 100 });
    expect(zoomAfterKey('ArrowRight', { start: 25, end: 75 })).toEqual({ start: 37.5, end: 87.5 });
    expect(zoomAfterKey('ArrowLeft', { start: 10, end: 60 })).toEqual({ start: 0, end: 50 });
    expect(zoomAfterKey('ArrowRight', { start: 60, end: 100 })).toEqual({ start: 60, end: 100 });
    expect(zoomAfterKey('0', { start: 40, end: 45 })).toEqual({ start: 0, end: 100 });
    expect(zoomAfterKey('x', { start: 0, end: 100 })).toBeNull();
  });
});
