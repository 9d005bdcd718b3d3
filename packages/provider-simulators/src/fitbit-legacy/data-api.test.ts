/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk provider JSON whose shape the zod schemas have already checked */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { RunningSimulator } from '../common/types';
import * as schemas from './fitbit-legacy.schemas';
import { startFitbitLegacySimulator } from './index';
import { apiGet, signIn } from './test-support';

let sim: RunningSimulator;
let ava: string;

beforeAll(async () => {
  sim = await startFitbitLegacySimulator({ startTime: '2026-10-20T15:30:00Z' });
  ava = (await signIn(sim, 'ava-thompson')).access_token;
});
afterAll(async () => {
  await sim.close();
});

// Each rate-limited call counts; give every test a fresh quota so the suite order never matters.
const get = async (path: string, headers: Record<string, string> = {}, token = ava) => {
  sim.control.resetRateLimits();
  return apiGet(sim, token, path, headers);
};

const decimal = schemas.decimalSeriesValue;
const SERIES_RESOURCES = [
  ['calories', undefined],
  ['caloriesBMR', undefined],
  ['steps', undefined],
  ['distance', decimal],
  ['floors', undefined],
  ['elevation', decimal],
  ['minutesSedentary', undefined],
  ['minutesLightlyActive', undefined],
  ['minutesFairlyActive', undefined],
  ['minutesVeryActive', undefined],
  ['activityCalories', undefined],
] as const;

/** The resource paths TrialPulse's Fitbit data page builds (spec §7), with their shapes. */
const CASES: Array<[string, z.ZodType]> = [
  ['/1/user/-/profile.json', schemas.profile],
  ['/1/user/-/devices.json', schemas.devices],
  ['/1/user/-/activities/date/2026-10-19.json', schemas.dailySummary],
  ...SERIES_RESOURCES.map(([resource, value]): [string, z.ZodType] => [
    `/1/user/-/activities/${resource}/date/2026-10-19/7d.json`,
    schemas.timeSeries(`activities-${resource}`, value),
  ]),
  ...(['Lightly', 'Fairly', 'Very'] as const).map((level): [string, z.ZodType] => [
    `/1/user/-/activities/tracker/minutes${level}Active/date/2026-10-12/2026-10-19.json`,
    schemas.timeSeries(`activities-tracker-minutes${level}Active`),
  ]),
  ['/1/user/-/activities/steps/date/2026-10-19/1d/1min.json', schemas.intraday('activities-steps')],
  [
    '/1/user/-/activities/distance/date/2026-10-19/1d/5min/time/07:00/12:00.json',
    schemas.intraday('activities-distance'),
  ],
  ['/1/user/-/activities/floors/date/today/1d/15min.json', schemas.intraday('activities-floors')],
  [
    '/1/user/-/activities/elevation/date/2026-10-19/1d/15min.json',
    schemas.intraday('activities-elevation'),
  ],
  [
    '/1/user/-/activities/calories/date/2026-10-19/1d/15min/time/08:00/12:00.json',
    schemas.intraday('activities-calories', true),
  ],
  [
    '/1/user/-/activities/steps/date/2026-10-18/2026-10-19/15min/time/20:00/06:00.json',
    schemas.intraday('activities-steps'),
  ],
  ['/1/user/-/activities/heart/date/2026-10-19/7d.json', schemas.heartSeries],
  ['/1/user/-/activities/heart/date/2026-09-20/2026-10-19.json', schemas.heartSeries],
  [
    '/1/user/-/activities/heart/date/2026-10-19/1d/1sec/time/08:00/08:10.json',
    schemas.heartIntraday,
  ],
  ['/1/user/-/activities/heart/date/2026-10-19/1d/1min.json', schemas.heartIntraday],
  ['/1/user/-/activities/heart/date/2026-10-19/1d/15min.json', schemas.heartIntraday],
  ['/1.2/user/-/sleep/date/2026-10-19.json', schemas.sleepByDate],
  ['/1.2/user/-/sleep/date/2026-07-20/2026-10-19.json', schemas.sleepRange],
  [
    '/1.2/user/-/sleep/list.json?beforeDate=2026-10-19&sort=desc&offset=0&limit=10',
    schemas.sleepList,
  ],
  ['/1/user/-/body/log/weight/date/2026-10-19/1m.json', schemas.weightLogs],
  ['/1/user/-/body/log/weight/date/2026-10-19.json', schemas.weightLogs],
  ['/1/user/-/body/log/fat/date/2026-09-20/2026-10-19.json', schemas.fatLogs],
  ['/1/user/-/body/weight/date/2026-10-19/3m.json', schemas.timeSeries('body-weight', decimal)],
  ['/1/user/-/body/bmi/date/2026-10-19/30d.json', schemas.timeSeries('body-bmi', decimal)],
  ['/1/user/-/body/fat/date/2026-10-19/1y.json', schemas.timeSeries('body-fat', decimal)],
  ['/1/user/-/foods/log/date/2026-10-19.json', schemas.foodLog],
  ['/1/user/-/foods/log/water/date/2026-10-19.json', schemas.waterLog],
  [
    '/1/user/-/foods/log/caloriesIn/date/2026-10-19/30d.json',
    schemas.timeSeries('foods-log-caloriesIn'),
  ],
  [
    '/1/user/-/foods/log/water/date/2026-10-01/2026-10-19.json',
    schemas.timeSeries('foods-log-water', decimal),
  ],
  ['/1/user/-/spo2/date/2026-09-20/2026-10-19.json', schemas.spo2Range],
  ['/1/user/-/spo2/date/2026-10-19.json', schemas.spo2Day],
  ['/1/user/-/spo2/date/2026-10-19/all.json', schemas.spo2Intraday],
  ['/1/user/-/cardioscore/date/2026-09-20/2026-10-19.json', schemas.cardioScore],
  ['/1/user/-/cardioscore/date/2026-10-19.json', schemas.cardioScore],
  [
    '/1/user/-/activities/list.json?beforeDate=2026-10-20&sort=desc&offset=0&limit=5',
    schemas.activityList,
  ],
  ['/1/user/-/activities/active-zone-minutes/date/2026-10-19/30d.json', schemas.activeZoneMinutes],
];

describe('resource paths in Fitbit’s exact shapes', () => {
  it.each(CASES)('%s', async (path, schema) => {
    const first = await get(path);
    expect(first.status, JSON.stringify(first.body).slice(0, 500)).toBe(200);
    schema.parse(first.body);
    expect(JSON.stringify(first.body).length).toBeGreaterThan(40);
    const second = await get(path);
    expect(second.body).toEqual(first.body);
  });

  it('fills periods with one string value per day and answers the same for a range', async () => {
    const byPeriod = (await get('/1/user/-/activities/steps/date/2026-10-19/1m.json'))
      .body as Record<string, Array<{ dateTime: string }>>;
    const dates = byPeriod['activities-steps']!.map((e) => e.dateTime);
    expect(dates[0]).toBe('2026-09-20');
    expect(dates.at(-1)).toBe('2026-10-19');
    const byRange = await get('/1/user/-/activities/steps/date/2026-09-20/2026-10-19.json');
    expect(byRange.body).toEqual(byPeriod);
  });

  it('intraday totals match the daily value', async () => {
    const body = (await get('/1/user/-/activities/steps/date/2026-10-19/1d/1min.json')).body as any;
    const total = body['activities-steps-intraday'].dataset.reduce(
      (sum: number, e: { value: number }) => sum + e.value,
      0,
    );
    expect(String(total)).toBe(body['activities-steps'][0].value);
    expect(body['activities-steps-intraday'].dataset).toHaveLength(1440);
  });

  it('labels intraday times in UTC with timezone=UTC', async () => {
    const local = (await get('/1/user/-/activities/steps/date/2026-10-19/1d/1min.json'))
      .body as any;
    const utc = (await get('/1/user/-/activities/steps/date/2026-10-19/1d/1min.json?timezone=UTC'))
      .body as any;
    const values = (body: any) =>
      body['activities-steps-intraday'].dataset.map((e: { value: number }) => e.value);
    // New York is UTC−4 in October: 04:00 UTC is local midnight.
    expect(values(utc).slice(240)).toEqual(values(local).slice(0, 1200));
    expect(
      values(local)
        .slice(0, 1200)
        .some((v: number) => v > 0),
    ).toBe(true);
    expect(utc['activities-steps-intraday'].dataset).toHaveLength(1440);
  });

  it('switches units with Accept-Language', async () => {
    const path = '/1/user/-/activities/distance/date/2026-10-19/1d.json';
    const km = Number(((await get(path)).body as any)['activities-distance'][0].value);
    const miles = Number(
      ((await get(path, { 'accept-language': 'en_US' })).body as any)['activities-distance'][0]
        .value,
    );
    expect(miles).toBeCloseTo(km / 1.609344, 3);
    const kg = ((await get('/1/user/-/body/log/weight/date/2026-10-19.json')).body as any).weight[0]
      .weight;
    const lb = (
      (await get('/1/user/-/body/log/weight/date/2026-10-19.json', { 'accept-language': 'en_US' }))
        .body as any
    ).weight[0].weight;
    expect(lb).toBeCloseTo(kg * 2.20462, 0);
  });

  it('follows pagination.next through the activity log without repeats', async () => {
    let next: string = `${sim.baseUrl}/1/user/-/activities/list.json?beforeDate=2026-10-20&sort=desc&offset=0&limit=4`;
    const ids: number[] = [];
    const starts: string[] = [];
    for (let page = 0; page < 3 && next; page++) {
      const body = schemas.activityList.parse((await get(next.slice(sim.baseUrl.length))).body);
      ids.push(...body.activities.map((a) => a.logId));
      starts.push(...body.activities.map((a) => a.startTime));
      next = body.pagination.next;
      expect(body.pagination.offset).toBe(page * 4);
    }
    expect(new Set(ids).size).toBe(12);
    expect([...starts].sort().reverse()).toEqual(starts);
  });

  it('lists sleep ascending after a date', async () => {
    const body = schemas.sleepList.parse(
      (await get('/1.2/user/-/sleep/list.json?afterDate=2026-10-01&sort=asc&offset=0&limit=5'))
        .body,
    );
    expect(body.sleep).toHaveLength(5);
    expect(body.sleep.every((log) => log.startTime > '2026-10-01')).toBe(true);
    expect(body.sleep.map((log) => log.startTime)).toEqual(
      body.sleep.map((log) => log.startTime).sort(),
    );
    expect(body.pagination.next).toContain('offset=5');
  });
});

describe('range limits and validation', () => {
  it.each([
    [
      '/1/user/-/activities/steps/date/2023-10-21/2026-10-19.json',
      '/1/user/-/activities/steps/date/2023-10-20/2026-10-19.json',
    ],
    [
      '/1/user/-/activities/heart/date/2025-10-19/2026-10-19.json',
      '/1/user/-/activities/heart/date/2025-10-18/2026-10-19.json',
    ],
    [
      '/1.2/user/-/sleep/date/2026-07-12/2026-10-19.json',
      '/1.2/user/-/sleep/date/2026-07-11/2026-10-19.json',
    ],
    [
      '/1/user/-/body/log/weight/date/2026-09-19/2026-10-19.json',
      '/1/user/-/body/log/weight/date/2026-09-18/2026-10-19.json',
    ],
    [
      '/1/user/-/body/log/fat/date/2026-09-20/2026-10-19.json',
      '/1/user/-/body/log/fat/date/2026-09-19/2026-10-19.json',
    ],
    [
      '/1/user/-/spo2/date/2026-09-20/2026-10-19.json',
      '/1/user/-/spo2/date/2026-09-19/2026-10-19.json',
    ],
    [
      '/1/user/-/cardioscore/date/2026-09-20/2026-10-19.json',
      '/1/user/-/cardioscore/date/2026-09-19/2026-10-19.json',
    ],
    [
      '/1/user/-/activities/steps/date/2026-10-18/2026-10-19/1min/time/12:00/12:00.json',
      '/1/user/-/activities/steps/date/2026-10-18/2026-10-19/1min/time/12:00/12:01.json',
    ],
  ])('%s is allowed, one day more is a validation error', async (allowed, tooLong) => {
    expect((await get(allowed)).status).toBe(200);
    const response = await get(tooLong);
    expect(response.status).toBe(400);
    expect(schemas.errorBody.parse(response.body).errors[0]?.errorType).toBe('validation');
  });

  it.each([
    '/1/user/-/activities/heart/date/2026-10-19/3m.json',
    '/1/user/-/activities/steps/date/2026-13-01/7d.json',
    '/1/user/-/activities/steps/date/2026-10-19/2026-10-01.json',
    '/1/user/-/activities/steps/date/2026-10-19/1d/1sec.json',
    '/1/user/-/activities/list.json?beforeDate=2026-10-20&sort=asc&offset=0&limit=5',
    '/1/user/-/activities/list.json?beforeDate=2026-10-20&sort=desc&offset=0&limit=101',
    '/1.2/user/-/sleep/list.json?beforeDate=2026-10-20&afterDate=2026-10-01&sort=desc&limit=5',
  ])('%s → 400 or 404 in Fitbit’s error shape', async (path) => {
    const response = await get(path);
    expect([400, 404]).toContain(response.status);
    schemas.errorBody.parse(response.body);
  });

  it('answers 404 for unknown resources, 403 for another user and for a missing scope', async () => {
    const unknown = await get('/1/user/-/activities/teleports/date/today/7d.json');
    expect(unknown.status).toBe(404);
    expect(schemas.errorBody.parse(unknown.body).errors[0]?.errorType).toBe('not_found');
    expect((await get('/1/user/7QXK2M/profile.json')).status).toBe(200);
    expect((await get('/1/user/4HP9TD/profile.json')).status).toBe(403);
    const narrow = (await signIn(sim, 'ben-okafor', ['activity'])).access_token;
    const heart = await get('/1/user/-/activities/heart/date/today/1d.json', {}, narrow);
    expect(heart.status).toBe(403);
    expect(schemas.errorBody.parse(heart.body).errors[0]?.errorType).toBe('insufficient_scope');
  });
});

describe('gaps and data sanity', () => {
  it('shows days without the tracker, an empty battery and a stale sync', async () => {
    const carmen = (await signIn(sim, 'carmen-diaz')).access_token;
    const steps = (
      (await get('/1/user/-/activities/steps/date/2026-10-19/30d.json', {}, carmen)).body as any
    )['activities-steps'];
    const zeroDays = steps
      .filter((e: { value: string }) => e.value === '0')
      .map((e: { dateTime: string }) => e.dateTime);
    expect(zeroDays.length).toBeGreaterThan(0);
    const heart = (
      (await get('/1/user/-/activities/heart/date/2026-10-19/30d.json', {}, carmen)).body as any
    )['activities-heart'];
    for (const day of heart.filter((e: { dateTime: string }) => zeroDays.includes(e.dateTime))) {
      expect(day.value.restingHeartRate).toBeUndefined();
    }
    const [tracker] = schemas.devices.parse((await get('/1/user/-/devices.json', {}, carmen)).body);
    expect(tracker).toMatchObject({ battery: 'Empty', batteryLevel: 0, type: 'TRACKER' });
    // Carmen's tracker last synced about 38 hours before "now" (2026-10-20 08:30 local).
    expect(tracker!.lastSyncTime < '2026-10-19T00:00:00.000').toBe(true);
  });

  it('keeps heart rate within 35–200 and steps at zero during sleep', async () => {
    const heart = (await get('/1/user/-/activities/heart/date/2026-10-18/1d/1sec.json'))
      .body as any;
    const values = heart['activities-heart-intraday'].dataset.map(
      (e: { value: number }) => e.value,
    );
    expect(values.length).toBeGreaterThan(10_000);
    expect(Math.min(...values)).toBeGreaterThanOrEqual(35);
    expect(Math.max(...values)).toBeLessThanOrEqual(200);

    const sleep = schemas.sleepByDate.parse(
      (await get('/1.2/user/-/sleep/date/2026-10-19.json')).body,
    );
    const main = sleep.sleep.find((log) => log.isMainSleep)!;
    expect(
      Number(main.startTime.slice(11, 13)) >= 20 || Number(main.startTime.slice(11, 13)) < 4,
    ).toBe(true);
    const minutes = (await get('/1/user/-/activities/steps/date/2026-10-19/1d/1min.json'))
      .body as any;
    const wake = main.endTime.slice(11, 19);
    const morning = minutes['activities-steps-intraday'].dataset.filter(
      (e: { time: string }) => e.time < wake,
    );
    expect(morning.length).toBeGreaterThan(100);
    expect(morning.every((e: { value: number }) => e.value === 0)).toBe(true);
  });
});
