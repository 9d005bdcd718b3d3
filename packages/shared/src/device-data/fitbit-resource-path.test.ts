import { describe, expect, it } from 'vitest';
import { parseFitbitResourcePath } from './fitbit-resource-path';

const TODAY = '2026-11-20';

describe('parseFitbitResourcePath', () => {
  it.each([
    [
      'activities/steps/date/2026-11-07/7d.json',
      {
        kind: 'activities-series',
        resource: 'steps',
        tracker: false,
        start: '2026-11-01',
        end: '2026-11-07',
      },
    ],
    // The spec's tracker active-minutes path sends the end date first.
    [
      'activities/tracker/minutesVeryActive/date/2026-11-07/2026-11-01.json',
      {
        kind: 'activities-series',
        resource: 'minutesVeryActive',
        tracker: true,
        start: '2026-11-01',
        end: '2026-11-07',
      },
    ],
    [
      'activities/steps/date/today/1d/15min/time/08:00/12:00.json',
      {
        kind: 'activities-intraday',
        resource: 'steps',
        date: TODAY,
        detail: '15min',
        time: { from: '08:00', to: '12:00' },
      },
    ],
    [
      'activities/heart/date/2026-11-07/1m.json',
      { kind: 'heart-series', start: '2026-10-08', end: '2026-11-07' },
    ],
    [
      'activities/heart/date/2026-11-03/1d/1sec.json',
      { kind: 'heart-intraday', date: '2026-11-03', detail: '1sec' },
    ],
    [
      'body/log/weight/date/2026-11-07/30d.json',
      { kind: 'body-log', resource: 'weight', start: '2026-10-09', end: '2026-11-07' },
    ],
    [
      'body/log/fat/date/2026-11-07.json',
      { kind: 'body-log', resource: 'fat', start: '2026-11-07', end: '2026-11-07' },
    ],
    [
      'sleep/date/2026-11-03.json',
      { kind: 'sleep', start: '2026-11-03', end: '2026-11-03', single: true },
    ],
    [
      'sleep/date/2026-09-01/2026-11-07.json',
      { kind: 'sleep', start: '2026-09-01', end: '2026-11-07', single: false },
    ],
    [
      'spo2/date/2026-11-01/2026-11-07.json',
      { kind: 'spo2', start: '2026-11-01', end: '2026-11-07', single: false },
    ],
    [
      'cardioscore/date/2026-11-07/7d.json',
      { kind: 'cardioscore', start: '2026-11-01', end: '2026-11-07' },
    ],
    ['foods/log/date/2026-11-03.json', { kind: 'foods-log', date: '2026-11-03' }],
    [
      'foods/log/caloriesIn/date/2026-11-07/7d.json',
      { kind: 'foods-series', resource: 'caloriesIn', start: '2026-11-01', end: '2026-11-07' },
    ],
    [
      'activities/list.json?beforeDate=2026-11-07&sort=desc&offset=0&limit=1',
      { kind: 'activities-list', beforeDate: '2026-11-07', sort: 'desc', limit: 1 },
    ],
    ['overview', { kind: 'overview', start: '2026-11-14', end: TODAY }],
    [
      'overview/date/2026-11-01/2026-11-07.json',
      { kind: 'overview', start: '2026-11-01', end: '2026-11-07' },
    ],
  ])('%s', (path, request) => {
    expect(parseFitbitResourcePath(path, TODAY)).toEqual({ ok: true, request });
  });

  it.each([
    ['activities/steps/date/2026-11-01', 'parametersMissing'],
    ['activities/heart/date', 'parametersMissing'],
    ['sleep/date', 'parametersMissing'],
    ['activities/list.json?sort=desc&limit=1', 'parametersMissing'],
    ['activities/steps/date/2026-11-07/2026-11-01.json', 'badRequest'],
    ['activities/heart/date/2026-11-03/1d/5sec.json', 'badRequest'],
    ['activities/steps/date/2026-11-03/1d/1sec.json', 'badRequest'],
    // Range limits of the legacy API: weight 31 days, sleep 100, SpO2 30.
    ['body/log/weight/date/2026-10-01/2026-11-07.json', 'badRequest'],
    ['sleep/date/2026-07-01/2026-11-07.json', 'badRequest'],
    ['spo2/date/2026-10-01/2026-11-07.json', 'badRequest'],
    ['activities/list.json?beforeDate=2026-11-07&sort=asc&limit=1', 'badRequest'],
    ['activities/list.json?afterDate=2026-11-07&sort=asc&limit=101', 'badRequest'],
    ['nothing/date/2026-11-01.json', 'badRequest'],
  ])('%s → %s', (path, error) => {
    expect(parseFitbitResourcePath(path, TODAY)).toEqual({ ok: false, error });
  });
});
