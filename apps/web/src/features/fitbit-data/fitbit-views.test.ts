import { describe, expect, it } from 'vitest';
import { LIMITS } from '@trialpulse/shared';
import { DATA_FORM_MESSAGES, dataFormError } from './data-form/data-form';
import {
  COMPARE_MESSAGES,
  compareFormError,
  compareRange,
  compareShortcut,
  compareRows,
  dailyValues,
  seriesPath,
  toggleSelection,
} from './multi/compare';
import { dayError, defaultDay, intradayOf, todayText, totalOf } from './one-day/intraday';
import { oneDayChart } from './one-day/one-day-chart';
import { overviewPath, tileFigures } from './overview/overview';
import { defaultRawPath } from './raw/fitbit-raw-page';

describe('one-day data', () => {
  it('reads a legacy 1-second heart-rate day into interleaved typed arrays', () => {
    const dataset = Array.from({ length: 86_400 }, (_, s) => ({
      time: new Date(s * 1000).toISOString().slice(11, 19),
      value: 60 + (s % 50),
    }));
    const body = {
      'activities-heart': [{ dateTime: '2026-11-20', value: {} }],
      'activities-heart-intraday': { dataset, datasetInterval: 1, datasetType: 'second' },
    };
    const series = intradayOf(body, 'heart', '2026-11-20');
    expect(series.count).toBe(86_400);
    expect(series.xy).toBeInstanceOf(Float64Array);
    expect(series.xy[0]).toBe(Date.parse('2026-11-20T00:00:00Z'));
    expect(series.xy[2 * 86_399]).toBe(Date.parse('2026-11-20T23:59:59Z'));
    expect([series.min, series.max]).toEqual([60, 109]);
    // The chart gets the same typed array with the large-data settings.
    const option = oneDayChart(series, intradayOf({}, 'steps', '2026-11-20')) as {
      series: Array<{ data: unknown; sampling?: string; large?: boolean }>;
    };
    expect(option.series[0]!.data).toBe(series.xy);
    expect(option.series[0]).toMatchObject({ sampling: 'lttb', large: true });
  });

  it('zooms and pans the time axis with the wheel, a drag and the slider', () => {
    const empty = intradayOf({}, 'heart', '2026-11-20');
    const option = oneDayChart(empty, empty) as {
      xAxis: { type: string };
      dataZoom: Array<Record<string, unknown>>;
    };
    expect(option.xAxis.type).toBe('time');
    expect(option.dataZoom.map((zoom) => zoom.type).sort()).toEqual(['inside', 'slider']);
    for (const zoom of option.dataZoom) {
      // The x axis only (the BPM and steps axes keep their scale), the whole day at first,
      // and the line kept past the window's edges rather than cut at them.
      expect(zoom).toMatchObject({ xAxisIndex: 0, filterMode: 'none' });
      expect(zoom).not.toHaveProperty('yAxisIndex');
      expect(zoom.start ?? 0).toBe(0);
      expect(zoom.end ?? 100).toBe(100);
    }
  });

  it('sums steps per minute, skips malformed points and answers empty without a dataset', () => {
    const steps = intradayOf(
      {
        'activities-steps-intraday': {
          dataset: [
            { time: '00:00:00', value: 0 },
            { time: '00:01:00', value: 7 },
            { time: 'noon', value: 3 },
            { time: '00:02', value: '5' },
          ],
        },
      },
      'steps',
      '2026-11-20',
    );
    expect(steps.count).toBe(3);
    expect(totalOf(steps)).toBe(12);
    expect(intradayOf({ error: 'x' }, 'heart', '2026-11-20').count).toBe(0);
  });

  it('opens on yesterday and refuses a missing or future day', () => {
    const now = new Date(2026, 10, 25, 1, 30);
    expect(defaultDay(now)).toBe('2026-11-24');
    expect(todayText(now)).toBe('2026-11-25');
    expect(dayError('', '2026-11-25')).toBe('Please select a start date');
    expect(dayError('2026-11-26', '2026-11-25')).toBe('Start date cannot be in the future.');
    expect(dayError('2026-11-25', '2026-11-25')).toBeNull();
  });
});

describe('multi-participant comparison', () => {
  it('checks the form in order with the §5 messages', () => {
    const today = '2026-11-25';
    expect(compareFormError({ resource: '', period: '7d', end: today }, today)).toBe(
      'Please select a resource',
    );
    expect(compareFormError({ resource: 'steps', period: '', end: today }, today)).toBe(
      'Please select a period',
    );
    expect(compareFormError({ resource: 'steps', period: '7d', end: '' }, today)).toBe(
      'Please select an end date',
    );
    expect(compareFormError({ resource: 'steps', period: '7d', end: '2026-11-26' }, today)).toBe(
      COMPARE_MESSAGES.futureDate,
    );
    expect(compareFormError({ resource: 'steps', period: '30d', end: today }, today)).toBeNull();
    expect(seriesPath('floors', today, '30d')).toBe('activities/floors/date/2026-11-25/30d.json');
    const custom = { resource: 'steps', period: 'customDates', end: today } as const;
    expect(compareFormError(custom, today)).toBe(COMPARE_MESSAGES.selectStartDate);
    expect(compareFormError({ ...custom, start: '2026-11-26', end: '2026-11-24' }, today)).toBe(
      COMPARE_MESSAGES.order,
    );
    expect(compareFormError({ ...custom, start: '2025-11-24' }, today)).toBe(
      COMPARE_MESSAGES.tooLong,
    );
    expect(compareFormError({ ...custom, start: '2026-11-12' }, today)).toBeNull();
    expect(seriesPath('steps', today, 'customDates', '2026-11-12')).toBe(
      'activities/steps/date/2026-11-12/2026-11-25.json',
    );
  });

  it('date shortcuts: the §9 period when one is exactly the days, else custom dates (decision 0190)', () => {
    const today = '2026-11-25';
    const form = { resource: 'steps', period: '3m', end: '2026-11-01' } as const;
    const week = compareShortcut(form, 7, today);
    expect(week).toMatchObject({ period: '7d', end: today });
    expect(compareRange(week)).toEqual({ start: '2026-11-19', end: today });
    expect(compareShortcut(form, 30, today)).toMatchObject({ period: '30d', end: today });
    const ninety = compareShortcut(form, 90, today);
    expect(ninety).toMatchObject({ period: 'customDates', start: '2026-08-28', end: today });
    expect(compareRange(ninety)).toEqual({ start: '2026-08-28', end: today });
  });

  it('lays two participants side by side by date, newest first, distance in miles', () => {
    const a = dailyValues(
      { 'activities-distance': [{ dateTime: '2026-11-01', value: '1.609' }] },
      'distance',
    );
    expect(a.get('2026-11-01')).toBe(1);
    const steps1 = dailyValues(
      {
        'activities-steps': [
          { dateTime: '2026-11-01', value: '100' },
          { dateTime: '2026-11-02', value: '200' },
        ],
      },
      'steps',
    );
    const steps2 = dailyValues(
      { 'activities-steps': [{ dateTime: '2026-11-02', value: '50' }] },
      'steps',
    );
    expect(compareRows([{ id: 1 }, { id: 2 }], [steps1, steps2])).toEqual([
      { date: '2026-11-02', p1: 200, p2: 50 },
      { date: '2026-11-01', p1: 100, p2: null },
    ]);
  });

  it(`selects at most ${LIMITS.fitbitRowSelectionCap} rows and says so at the cap`, () => {
    let selected: string[] = [];
    for (const day of ['d1', 'd2', 'd3', 'd4']) {
      const next = toggleSelection(selected, day);
      expect(next.message).toBeNull();
      selected = next.selected;
    }
    const refused = toggleSelection(selected, 'd5');
    expect(refused).toEqual({
      selected: ['d1', 'd2', 'd3', 'd4'],
      message: 'At most 4 rows can be selected.',
    });
    expect(toggleSelection(selected, 'd2')).toEqual({
      selected: ['d1', 'd3', 'd4'],
      message: null,
    });
  });
});

describe('overview, data form and raw page', () => {
  it('compares the last 7 days with the 7 before', () => {
    expect(overviewPath('steps', '2026-11-24')).toBe(
      'activities/steps/date/2026-11-11/2026-11-24.json',
    );
    const values = new Map<string, number>();
    for (let d = 11; d <= 24; d += 1) values.set(`2026-11-${d}`, d <= 17 ? 100 : 150);
    const figures = tileFigures(values, '2026-11-24');
    expect(figures).toMatchObject({ last7: 1050, previous7: 700, change: 50 });
    expect(figures.days).toHaveLength(14);
    expect(tileFigures(new Map(), '2026-11-24').change).toBeNull();
  });

  it('checks the data form with the §5 messages', () => {
    const today = '2026-11-25';
    const ok = { resource: 'steps' as const, start: '2026-11-01', end: '2026-11-07' };
    expect(dataFormError({ ...ok, resource: '' }, today)).toBe(DATA_FORM_MESSAGES.selectResource);
    expect(dataFormError({ ...ok, start: '' }, today)).toBe('Please select a start date');
    expect(dataFormError({ ...ok, end: '' }, today)).toBe('Please select an end date');
    expect(dataFormError({ ...ok, end: '2026-11-30' }, today)).toBe(DATA_FORM_MESSAGES.future);
    expect(dataFormError({ ...ok, start: '2026-11-08' }, today)).toBe(DATA_FORM_MESSAGES.order);
    expect(dataFormError({ ...ok, start: '2025-01-01' }, today)).toBe(DATA_FORM_MESSAGES.tooLong);
    expect(dataFormError(ok, today)).toBeNull();
  });

  it('asks the upstream for a week of steps by default', () => {
    expect(defaultRawPath(new Date(2026, 10, 25, 9))).toBe(
      'activities/steps/date/2026-11-18/2026-11-24.json',
    );
  });
});
