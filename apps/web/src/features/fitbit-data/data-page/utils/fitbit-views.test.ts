import { describe, expect, it } from 'vitest';
import {
  selectFitbitCategory,
  selectFitbitOption,
  type FitbitCategory,
} from '@trialpulse/shared/device-data/fitbit-query';
import { toFitbitView } from './fitbit-views';
import { moveTile } from './tiles';

const query = (category: FitbitCategory, option?: string) => {
  const base = selectFitbitCategory(category);
  return option ? selectFitbitOption(base, option) : base;
};

/** Answers in the legacy Fitbit Web API's shapes (provider-apis §1.5–§1.13). */
describe('Fitbit answers as tables and charts', () => {
  it('distance series: km strings become miles', () => {
    const view = toFitbitView(query('activities'), [
      { 'activities-distance': [{ dateTime: '2026-11-01', value: '16.09' }] },
    ]);
    expect(view.columns.map((c) => c.header)).toEqual(['Date', 'Distance (mi)']);
    expect(view.rows).toEqual([{ date: '2026-11-01', distance: 10 }]);
  });

  it('body weight: logs of every 30-day window, in pounds', () => {
    const logs = toFitbitView(query('body'), [
      {
        weight: [
          {
            bmi: 21.48,
            date: '2015-05-13',
            fat: 15.5,
            logId: 1,
            source: 'API',
            time: '18:28:59',
            weight: 56.7,
          },
        ],
      },
    ]);
    expect(logs.rows[0]).toMatchObject({ date: '2015-05-13 18:28:59', weight: 125, fat: 15.5 });
    const windows = toFitbitView(query('body'), [
      { weight: [{ date: '2019-03-01', time: '07:00:00', weight: 70, bmi: 22, logId: 2 }] },
      { weight: [{ date: '2019-04-01', time: '07:00:00', weight: 71, bmi: 22.3, logId: 3 }] },
    ]);
    expect(windows.rows.map((row) => [row.date, row.weight, row.bmi])).toEqual([
      ['2019-03-01 07:00:00', 154.3, 22],
      ['2019-04-01 07:00:00', 156.5, 22.3],
    ]);
  });

  it('heart-rate zones: one row per zone and day under the spec names, stacked bars', () => {
    const answer = {
      'activities-heart': [
        {
          dateTime: '2019-05-08',
          value: {
            customHeartRateZones: [],
            heartRateZones: [
              { caloriesOut: 2877.06579, max: 97, min: 30, minutes: 1324, name: 'Out of Range' },
              { caloriesOut: 100, max: 136, min: 97, minutes: 40, name: 'Fat Burn' },
              { caloriesOut: 50, max: 165, min: 136, minutes: 12, name: 'Cardio' },
              { caloriesOut: 0, max: 220, min: 165, minutes: 0, name: 'Peak' },
            ],
            restingHeartRate: 68,
          },
        },
      ],
    };
    const zones = toFitbitView(query('heart', 'heartRateZones'), [answer]);
    expect(zones.rows.map((r) => [r.zone, r.minutes])).toEqual([
      ['OutofRange', 1324],
      ['FatBurn', 40],
      ['Cardio', 12],
      ['Peak', 0],
    ]);
    const series = (
      zones.chart as { series: { type: string; stack: string; name: string; data: number[] }[] }
    ).series;
    expect(series.map((s) => [s.type, s.stack, s.name, s.data])).toEqual([
      ['bar', 'zones', 'OutofRange', [1324]],
      ['bar', 'zones', 'FatBurn', [40]],
      ['bar', 'zones', 'Cardio', [12]],
      ['bar', 'zones', 'Peak', [0]],
    ]);
    const resting = toFitbitView(query('heart'), [answer]);
    expect(resting.rows).toEqual([{ date: '2019-05-08', restingHeartRate: 68 }]);
  });

  it('heart-rate zones without calories per zone (Google Health) leave the calories empty, not 0', () => {
    const zone = (name: string, min: number, max: number, minutes: number) => ({
      max,
      min,
      minutes,
      name,
    });
    const answer = {
      'activities-heart': [
        {
          dateTime: '2026-11-24',
          value: {
            customHeartRateZones: [],
            heartRateZones: [
              zone('Out of Range', 30, 108, 900),
              zone('Fat Burn', 108, 134, 20),
              zone('Cardio', 134, 166, 4),
              zone('Peak', 166, 185, 0),
            ],
          },
        },
      ],
    };
    const zones = toFitbitView(query('heart', 'heartRateZones'), [answer]);
    expect(zones.rows.map((r) => [r.zone, r.minutes, r.caloriesOut])).toEqual([
      ['OutofRange', 900, null],
      ['FatBurn', 20, null],
      ['Cardio', 4, null],
      ['Peak', 0, null],
    ]);
  });

  it('sleep stages: minutes per stage, and a hypnogram with deep lowest and wake highest', () => {
    const answer = {
      sleep: [
        {
          dateOfSleep: '2020-02-21',
          startTime: '2020-02-20T23:21:30.000',
          endTime: '2020-02-21T07:03:30.000',
          minutesAsleep: 384,
          timeInBed: 462,
          efficiency: 96,
          isMainSleep: true,
          type: 'stages',
          levels: {
            data: [
              { dateTime: '2020-02-20T23:21:30.000', level: 'wake', seconds: 630 },
              { dateTime: '2020-02-20T23:32:00.000', level: 'light', seconds: 1800 },
              { dateTime: '2020-02-21T00:02:00.000', level: 'deep', seconds: 2400 },
              { dateTime: '2020-02-21T00:42:00.000', level: 'rem', seconds: 600 },
            ],
            summary: {
              deep: { count: 3, minutes: 70 },
              light: { count: 20, minutes: 220 },
              rem: { count: 5, minutes: 94 },
              wake: { count: 18, minutes: 78 },
            },
          },
        },
      ],
    };
    const view = toFitbitView(query('sleep', 'stages'), [answer]);
    expect(view.rows).toEqual([
      {
        dateOfSleep: '2020-02-21',
        startTime: '2020-02-20 23:21',
        type: 'stages',
        deep: 70,
        light: 220,
        rem: 94,
        wake: 78,
      },
    ]);
    const chart = view.chart as {
      series: { step: string; data: [number, number | null][] }[];
      yAxis: { axisLabel: { formatter: (v: number) => string } };
    };
    expect(chart.series[0]!.step).toBe('end');
    expect(chart.series[0]!.data.map(([, stage]) => stage)).toEqual([3, 1, 0, 2, 2, null]);
    expect([0, 1, 2, 3].map(chart.yAxis.axisLabel.formatter)).toEqual([
      'deep',
      'light',
      'rem',
      'wake',
    ]);
    const duration = toFitbitView(query('sleep'), [answer]);
    expect(duration.rows[0]).toMatchObject({ hoursAsleep: 6.4, timeInBed: 7.7, efficiency: 96 });
  });

  it('sleep stages: a classic log (asleep / restless / awake) says its type, its stage minutes empty', () => {
    const answer = {
      sleep: [
        {
          dateOfSleep: '2026-11-20',
          startTime: '2026-11-19T22:49:14.000',
          endTime: '2026-11-20T06:58:44.000',
          type: 'classic',
          levels: {
            data: [
              { dateTime: '2026-11-19T22:49:14.000', level: 'asleep', seconds: 3300 },
              { dateTime: '2026-11-19T23:44:14.000', level: 'restless', seconds: 60 },
            ],
            summary: {
              asleep: { count: 0, minutes: 450 },
              restless: { count: 8, minutes: 30 },
              awake: { count: 2, minutes: 9 },
            },
          },
        },
      ],
    };
    const view = toFitbitView(query('sleep', 'stages'), [answer]);
    expect(view.columns.map((column) => column.header)).toContain('Type');
    expect(view.rows).toEqual([
      {
        dateOfSleep: '2026-11-20',
        startTime: '2026-11-19 22:49',
        type: 'classic',
        deep: null,
        light: null,
        rem: null,
        wake: null,
      },
    ]);
  });

  it('SpO2, VO2 max, active minutes and activity logs', () => {
    expect(
      toFitbitView(query('healthMetrics'), [
        [{ dateTime: '2021-10-04', value: { avg: 97.5, min: 94, max: 100 } }],
      ]).rows,
    ).toEqual([{ date: '2021-10-04', avg: 97.5, min: 94, max: 100 }]);
    expect(
      toFitbitView(query('healthMetrics', 'vo2max'), [
        { cardioScore: [{ dateTime: '2021-10-25', value: { vo2Max: '42-46' } }] },
      ]).rows,
    ).toEqual([{ date: '2021-10-25', vo2Max: '42-46' }]);
    const active = toFitbitView(query('activities', 'activeMinutes'), [
      { 'activities-tracker-minutesLightlyActive': [{ dateTime: '2026-11-01', value: '100' }] },
      { 'activities-tracker-minutesFairlyActive': [{ dateTime: '2026-11-01', value: '20' }] },
      { 'activities-tracker-minutesVeryActive': [{ dateTime: '2026-11-01', value: '5' }] },
    ]);
    expect(active.rows).toEqual([
      {
        date: '2026-11-01',
        minutesLightlyActive: 100,
        minutesFairlyActive: 20,
        minutesVeryActive: 5,
      },
    ]);
    const logs = toFitbitView(query('activities', 'activityLogs'), [
      {
        activities: [
          {
            activeDuration: 1536000,
            activityName: 'Walk',
            calories: 204,
            averageHeartRate: 108,
            logType: 'auto_detected',
            startTime: '2019-01-03T12:08:23.000-08:00',
            steps: 1799,
          },
        ],
        pagination: {},
      },
    ]);
    expect(logs.rows[0]).toMatchObject({ activityName: 'Walk', minutes: 26, steps: 1799 });
  });

  it('an answer of another shape cannot be shown', () => {
    expect(() => toFitbitView(query('sleep', 'stages'), [{ unexpected: true }])).toThrow();
    expect(() => toFitbitView(query('activities'), [{}])).toThrow();
  });
});

describe('tile drag modes', () => {
  const order = ['a', 'b', 'c', 'd'];
  it('Shift moves the tile and closes up the others', () => {
    expect(moveTile(order, 'a', 'c', 'shift')).toEqual(['b', 'c', 'a', 'd']);
  });
  it('Swap trades the two places', () => {
    expect(moveTile(order, 'a', 'c', 'swap')).toEqual(['c', 'b', 'a', 'd']);
  });
});

describe('chart axes of the Fitbit views (decision 0171)', () => {
  it('sleep-duration bars start at zero: a 6.5 h night is drawn at 6.5/7.9 of a 7.9 h one', () => {
    const night = (date: string, minutes: number) => ({
      dateOfSleep: date,
      startTime: `${date}T23:00:00.000`,
      endTime: `${date}T07:00:00.000`,
      minutesAsleep: minutes,
      timeInBed: minutes + 20,
      efficiency: 95,
      isMainSleep: true,
    });
    const view = toFitbitView(query('sleep'), [
      { sleep: [night('2026-03-01', 390), night('2026-03-02', 474)] },
    ]);
    expect((view.chart as { yAxis: unknown }).yAxis).toMatchObject({ min: 0, scale: false });
  });

  it('resting heart rate: whole-bpm ticks on whole tens around the data', () => {
    const answer = {
      'activities-heart': [56, 57, 59].map((resting, i) => ({
        dateTime: `2026-03-0${i + 1}`,
        value: { heartRateZones: [], restingHeartRate: resting },
      })),
    };
    const axis = (
      toFitbitView(query('heart'), [answer]).chart as {
        yAxis: {
          min: (e: { min: number }) => number;
          max: (e: { max: number }) => number;
          minInterval: number;
        };
      }
    ).yAxis;
    expect([axis.min({ min: 56 }), axis.max({ max: 59 }), axis.minInterval]).toEqual([50, 70, 1]);
  });
});
