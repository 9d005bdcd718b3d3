/* eslint-disable @typescript-eslint/no-explicit-any -- the tests walk provider JSON whose shape the zod schemas have already checked */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAccount } from '../common/accounts';
import { addDays } from '../common/civil-time';
import type { RunningSimulator } from '../common/types';
import { wearableModel } from '../common/wearable-model';
import {
  type DataTypeJsonKey,
  type RollupKey,
  dailyRollUpResponse,
  errorResponse,
  identityResponse,
  listResponse,
  pairedDevicesResponse,
  profileResponse,
  reconcileResponse,
  rollUpResponse,
  settingsResponse,
} from './google-health.schemas';
import { startGoogleHealthSimulator } from './index';
import { apiGet, apiPost, filterParam, signIn } from './test-support';

const NOW = '2026-11-20T15:30:00Z';
let sim: RunningSimulator;
let ava: string;

beforeAll(async () => {
  sim = await startGoogleHealthSimulator({ startTime: NOW });
  ava = (await signIn(sim, { account: 'ava-thompson' })).access_token;
});
afterAll(async () => {
  await sim.close();
});

const list = (type: string, query = '') =>
  apiGet(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints${query ? `?${query}` : ''}`);

type Point = Record<string, unknown> & { name?: string };
const points = (body: Record<string, unknown>) => (body.dataPoints ?? []) as Point[];

/** The time a filter compares for each type, read back from the JSON. */
function filteredTime(key: DataTypeJsonKey, value: Record<string, any>): number {
  if ('sampleTime' in value) return Date.parse(value.sampleTime.physicalTime);
  if ('date' in value) return Date.UTC(value.date.year, value.date.month - 1, value.date.day);
  if (key === 'sleep') return Date.parse(value.interval.endTime);
  return Date.parse(value.interval.startTime);
}

const LIST_CASES: Array<{
  type: string;
  key: DataTypeJsonKey;
  filter: string;
  from: number;
  to: number;
  reconcile?: true;
}> = [
  ...(['steps', 'distance', 'altitude', 'active-zone-minutes', 'activity-level'] as const).map(
    (type) => ({
      type,
      key: type.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase()) as DataTypeJsonKey,
      filter: `${type.replaceAll('-', '_')}.interval.start_time >= "2026-11-18T00:00:00Z" AND ${type.replaceAll('-', '_')}.interval.start_time < "2026-11-20T00:00:00Z"`,
      from: Date.parse('2026-11-18T00:00:00Z'),
      to: Date.parse('2026-11-20T00:00:00Z'),
    }),
  ),
  {
    type: 'floors',
    key: 'floors',
    filter:
      'floors.interval.civil_start_time >= "2026-11-12" AND floors.interval.civil_start_time < "2026-11-19"',
    from: Date.parse('2026-11-12T00:00:00Z'),
    to: Date.parse('2026-11-19T12:00:00Z'),
    reconcile: true,
  },
  ...(['heart-rate', 'oxygen-saturation'] as const).map((type) => ({
    type,
    key: (type === 'heart-rate' ? 'heartRate' : 'oxygenSaturation') as DataTypeJsonKey,
    filter: `${type.replaceAll('-', '_')}.sample_time.physical_time >= "2026-11-19T06:00:00Z" AND ${type.replaceAll('-', '_')}.sample_time.physical_time < "2026-11-19T08:00:00Z"`,
    from: Date.parse('2026-11-19T06:00:00Z'),
    to: Date.parse('2026-11-19T08:00:00Z'),
  })),
  ...(['weight', 'body-fat'] as const).map((type) => ({
    type,
    key: (type === 'weight' ? 'weight' : 'bodyFat') as DataTypeJsonKey,
    filter: `${type.replaceAll('-', '_')}.sample_time.physical_time >= "2026-11-01T00:00:00Z"`,
    from: Date.parse('2026-11-01T00:00:00Z'),
    to: Date.parse(NOW),
  })),
  ...(
    [
      ['daily-resting-heart-rate', 'dailyRestingHeartRate'],
      ['daily-heart-rate-zones', 'dailyHeartRateZones'],
      ['daily-oxygen-saturation', 'dailyOxygenSaturation'],
      ['daily-vo2-max', 'dailyVo2Max'],
    ] as const
  ).map(([type, key]) => ({
    type,
    key,
    filter: `${type.replaceAll('-', '_')}.date >= "2026-11-10" AND ${type.replaceAll('-', '_')}.date < "2026-11-20"`,
    from: Date.parse('2026-11-10T00:00:00Z'),
    to: Date.parse('2026-11-20T00:00:00Z'),
  })),
  {
    type: 'sleep',
    key: 'sleep',
    filter:
      'sleep.interval.end_time >= "2026-11-10T00:00:00Z" AND sleep.interval.end_time < "2026-11-20T00:00:00Z"',
    from: Date.parse('2026-11-10T00:00:00Z'),
    to: Date.parse('2026-11-20T00:00:00Z'),
  },
  ...(
    [
      ['exercise', 'exercise'],
      ['nutrition-log', 'nutritionLog'],
      ['hydration-log', 'hydrationLog'],
    ] as const
  ).map(([type, key]) => ({
    type,
    key,
    filter: `${type.replaceAll('-', '_')}.interval.civil_start_time >= "2026-11-05T00:00:00"`,
    from: Date.parse('2026-11-04T12:00:00Z'),
    to: Date.parse(NOW),
  })),
];

describe('dataPoints list and reconcile', () => {
  it.each(LIST_CASES)(
    '$type: exact shape, filter respected, newest first, same answer twice',
    async ({ type, key, filter, from, to, reconcile }) => {
      const query = filterParam(filter);
      const first = reconcile
        ? await apiGet(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints:reconcile?${query}`)
        : await list(type, query);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const schema = reconcile ? reconcileResponse(key) : listResponse(key);
      const parsed = schema.parse(first.body);
      const found = points(parsed);
      expect(found.length).toBeGreaterThan(0);
      const times = found.map((point) => filteredTime(key, point[key] as Record<string, unknown>));
      for (const time of times) {
        expect(time).toBeGreaterThanOrEqual(from);
        expect(time).toBeLessThan(to);
      }
      const starts = found.map((point) => {
        const value = point[key] as Record<string, any>;
        return (
          Date.parse(
            value.interval?.startTime ??
              value.sampleTime?.physicalTime ??
              `${value.date?.year}-01-01`,
          ) || filteredTime(key, value)
        );
      });
      expect([...starts].sort((a, b) => b - a)).toEqual(starts);
      const second = reconcile
        ? await apiGet(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints:reconcile?${query}`)
        : await list(type, query);
      expect(second.body).toEqual(first.body);
    },
  );

  it('is stable across restarts (a second simulator gives identical data)', async () => {
    const other = await startGoogleHealthSimulator({ startTime: NOW });
    try {
      const token = (await signIn(other, { account: 'ava-thompson' })).access_token;
      const query =
        '?pageSize=300&filter=' +
        encodeURIComponent('heart_rate.sample_time.physical_time < "2026-11-19T00:00:00Z"');
      const a = await list('heart-rate', query.slice(1));
      const b = await apiGet(other, token, `/v4/users/me/dataTypes/heart-rate/dataPoints${query}`);
      expect(b.body).toEqual(a.body);
    } finally {
      await other.close();
    }
  });

  it('reconcile returns the same values with dataPointName and without dataSource', async () => {
    const query = filterParam('weight.sample_time.physical_time >= "2026-11-01T00:00:00Z"');
    const listed = points((await list('weight', query)).body);
    const reconciled = points(
      (await apiGet(sim, ava, `/v4/users/me/dataTypes/weight/dataPoints:reconcile?${query}`)).body,
    );
    expect(reconciled.map((p) => p.weight)).toEqual(listed.map((p) => p.weight));
    expect(reconciled.map((p) => p.dataPointName)).toEqual(listed.map((p) => p.name));
    expect(reconciled.every((p) => !('dataSource' in p))).toBe(true);
  });

  it('computes civil times from UTC plus the offset of each point (DST included)', async () => {
    const before = points(
      (
        await list(
          'steps',
          filterParam(
            'steps.interval.civil_start_time >= "2026-10-31T09:00:00" AND steps.interval.civil_start_time < "2026-10-31T23:00:00"',
          ),
        )
      ).body,
    );
    const after = points(
      (
        await list(
          'steps',
          filterParam(
            'steps.interval.civil_start_time >= "2026-11-02T09:00:00" AND steps.interval.civil_start_time < "2026-11-02T23:00:00"',
          ),
        )
      ).body,
    );
    for (const [batch, offset] of [
      [before, '-14400s'],
      [after, '-18000s'],
    ] as const) {
      expect(batch.length).toBeGreaterThan(0);
      for (const point of batch) {
        const interval = (point.steps as any).interval;
        expect(interval.startUtcOffset).toBe(offset);
        const civil = new Date(Date.parse(interval.startTime) + Number.parseInt(offset) * 1000);
        expect(interval.civilStartTime.date).toEqual({
          year: civil.getUTCFullYear(),
          month: civil.getUTCMonth() + 1,
          day: civil.getUTCDate(),
        });
        expect(interval.civilStartTime.time.hours ?? 0).toBe(civil.getUTCHours());
        expect(interval.civilStartTime.time.minutes ?? 0).toBe(civil.getUTCMinutes());
      }
    }
  });

  it('get returns the point a list names', async () => {
    for (const type of ['sleep', 'exercise', 'weight', 'nutrition-log']) {
      const [point] = points((await list(type, 'pageSize=1')).body);
      expect(point?.name).toMatch(
        new RegExp(`^users/1173016576421350648/dataTypes/${type}/dataPoints/\\d{19}$`),
      );
      const id = point!.name!.split('/').pop();
      const got = await apiGet(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints/${id}`);
      expect(got.status).toBe(200);
      expect(got.body).toEqual(point);
    }
    const missing = await apiGet(
      sim,
      ava,
      '/v4/users/me/dataTypes/sleep/dataPoints/2077700000000000000',
    );
    expect(missing.status).toBe(404);
    expect(errorResponse.parse(missing.body).error.status).toBe('NOT_FOUND');
  });
});

describe('pagination', () => {
  it('pages heart-rate newest first without gaps or repeats, accepting page_size', async () => {
    const filter =
      'heart_rate.sample_time.physical_time >= "2026-11-19T14:00:00Z" AND heart_rate.sample_time.physical_time < "2026-11-19T15:00:00Z"';
    const all = points((await list('heart-rate', `pageSize=10000&${filterParam(filter)}`)).body);
    expect(all.length).toBeGreaterThan(300);
    const seen: Point[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await list(
        'heart-rate',
        `page_size=200&${filterParam(filter)}${token ? `&pageToken=${token}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(points(page.body).length).toBeLessThanOrEqual(200);
      seen.push(...points(page.body));
      token = page.body.nextPageToken as string | undefined;
      pages++;
    } while (token);
    expect(pages).toBe(Math.floor(all.length / 200) + 1);
    expect(seen).toEqual(all);
  });

  it('answers {} when nothing matches (the last page may be empty)', async () => {
    const future = await list(
      'steps',
      filterParam('steps.interval.start_time >= "2027-01-01T00:00:00Z"'),
    );
    expect(future.status).toBe(200);
    expect(future.body).toEqual({});
  });

  it('caps sleep and exercise pages at 25 and defaults to 25', async () => {
    const big = await list('sleep', 'pageSize=100');
    expect(points(big.body)).toHaveLength(25);
    expect(big.body.nextPageToken).toEqual(expect.any(String));
    expect(points((await list('sleep')).body)).toHaveLength(25);
    const next = await list('sleep', `pageSize=100&pageToken=${big.body.nextPageToken}`);
    const firstEnd = Date.parse((points(big.body).at(-1)!.sleep as any).interval.startTime);
    expect(Date.parse((points(next.body)[0]!.sleep as any).interval.startTime)).toBeLessThan(
      firstEnd,
    );
  });

  it('rejects a page token used with a different filter', async () => {
    const first = await list('steps', 'pageSize=5');
    const misuse = await list(
      'steps',
      `pageSize=5&pageToken=${first.body.nextPageToken}&${filterParam('steps.interval.start_time >= "2026-11-01T00:00:00Z"')}`,
    );
    expect(misuse.status).toBe(400);
  });
});

describe('filters', () => {
  it('rejects a member the type does not support, exactly as the live API does', async () => {
    const response = await list(
      'sleep',
      filterParam('sleep.interval.civil_start_time >= "2026-11-19"'),
    );
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: 400,
        message: 'Invalid data point filter: INVALID_DATA_POINT_FILTER_DATA_TYPE_MEMBER.',
        status: 'INVALID_ARGUMENT',
        details: [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'INVALID_DATA_POINT_FILTER',
            domain: 'health.googleapis.com',
            metadata: { detailedReasons: 'INVALID_DATA_POINT_FILTER_DATA_TYPE_MEMBER' },
          },
          {
            '@type': 'type.googleapis.com/google.rpc.BadRequest',
            fieldViolations: [
              {
                field: 'filter',
                description:
                  "Member 'sleep.interval.civil_start_time' is not supported for filtering. (at line 1, column 1)",
              },
            ],
          },
        ],
      },
    });
  });

  it.each([
    [
      'body-fat',
      'body-fat.sample_time.physical_time >= "2026-11-01T00:00:00Z"',
      'INVALID_DATA_POINT_FILTER_DATA_TYPE_RESTRICTION',
    ],
    [
      'steps',
      'distance.interval.start_time >= "2026-11-01T00:00:00Z"',
      'INVALID_DATA_POINT_FILTER_COLLECTION_MISMATCH',
    ],
    [
      'exercise',
      'exercise.interval.start_time >= "2026-11-01T00:00:00Z"',
      'INVALID_DATA_POINT_FILTER_DATA_TYPE_MEMBER',
    ],
    [
      'steps',
      'steps.interval.start_time > "2026-11-01T00:00:00Z"',
      'INVALID_DATA_POINT_FILTER_SYNTAX',
    ],
    [
      'steps',
      'steps.interval.start_time >= "2026-11-01T00:00:00Z" OR steps.interval.start_time < "2026-11-02T00:00:00Z"',
      'INVALID_DATA_POINT_FILTER_SYNTAX',
    ],
  ])('%s: %s → %s', async (type, filter, reason) => {
    const response = await list(type, filterParam(filter));
    expect(response.status).toBe(400);
    expect(JSON.stringify(response.body)).toContain(reason);
  });

  it('accepts OR for sleep', async () => {
    const filter =
      'sleep.interval.civil_end_time < "2026-11-12T00:00:00" OR sleep.interval.civil_end_time >= "2026-11-18T00:00:00"';
    const found = points(
      (
        await list(
          'sleep',
          `${filterParam(`sleep.interval.civil_end_time >= "2026-11-10T00:00:00" AND ${filter}`)}`,
        )
      ).body,
    );
    const ends = found.map(
      (p) =>
        Date.parse((p.sleep as any).interval.endTime) +
        Number.parseInt((p.sleep as any).interval.endUtcOffset) * 1000,
    );
    expect(ends.length).toBeGreaterThan(2);
    for (const end of ends) {
      const inRange =
        end >= Date.parse('2026-11-18T00:00:00Z') ||
        (end < Date.parse('2026-11-12T00:00:00Z') && end >= Date.parse('2026-11-10T00:00:00Z'));
      expect(inRange).toBe(true);
    }
  });
});

const ROLLUP_CASES: Array<[string, RollupKey]> = [
  ['steps', 'steps'],
  ['distance', 'distance'],
  ['floors', 'floors'],
  ['altitude', 'altitude'],
  ['total-calories', 'totalCalories'],
  ['heart-rate', 'heartRate'],
  ['active-zone-minutes', 'activeZoneMinutes'],
  ['activity-level', 'activityLevel'],
  ['weight', 'weight'],
  ['body-fat', 'bodyFat'],
  ['hydration-log', 'hydrationLog'],
  ['nutrition-log', 'nutritionLog'],
];

describe('rollUp and dailyRollUp', () => {
  it.each(ROLLUP_CASES)(
    '%s: dailyRollUp and rollUp in the exact shape, same answer twice',
    async (type, key) => {
      const daily = {
        range: {
          start: { date: { year: 2026, month: 11, day: 10 } },
          end: { date: { year: 2026, month: 11, day: 20 } },
        },
        windowSizeDays: 1,
      };
      const first = await apiPost(
        sim,
        ava,
        `/v4/users/me/dataTypes/${type}/dataPoints:dailyRollUp`,
        daily,
      );
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const parsed = dailyRollUpResponse(key).parse(first.body);
      const windows = parsed.rollupDataPoints ?? [];
      expect(windows.length).toBeGreaterThan(0);
      // Newest first, civil midnights as `time: {}`.
      const days = windows.map((w) => (w.civilStartTime as any).date.day);
      expect([...days].sort((a, b) => b - a)).toEqual(days);
      expect(windows.every((w) => JSON.stringify((w.civilStartTime as any).time) === '{}')).toBe(
        true,
      );
      expect(
        (await apiPost(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints:dailyRollUp`, daily))
          .body,
      ).toEqual(first.body);

      const hourly = await apiPost(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints:rollUp`, {
        range: { startTime: '2026-11-18T00:00:00Z', endTime: '2026-11-20T00:00:00Z' },
        windowSize: '3600s',
      });
      expect(hourly.status).toBe(200);
      rollUpResponse(key).parse(hourly.body);
    },
  );

  it('dailyRollUp steps equals the sum of the listed steps of that day', async () => {
    const daily = await apiPost(sim, ava, '/v4/users/me/dataTypes/steps/dataPoints:dailyRollUp', {
      range: {
        start: { date: { year: 2026, month: 11, day: 18 } },
        end: { date: { year: 2026, month: 11, day: 19 } },
      },
    });
    const listed = points(
      (
        await list(
          'steps',
          `pageSize=10000&${filterParam('steps.interval.civil_start_time >= "2026-11-18" AND steps.interval.civil_start_time < "2026-11-19"')}`,
        )
      ).body,
    );
    const sum = listed.reduce((total, p) => total + Number((p.steps as any).count), 0);
    expect((daily.body.rollupDataPoints as any)[0].steps.countSum).toBe(String(sum));
  });

  it('keeps worn-but-idle windows (zero fields omitted) and leaves out unworn days', async () => {
    const night = await apiPost(sim, ava, '/v4/users/me/dataTypes/steps/dataPoints:rollUp', {
      range: { startTime: '2026-11-19T06:00:00Z', endTime: '2026-11-19T09:00:00Z' },
      windowSize: '3600s',
    });
    const windows = night.body.rollupDataPoints as Array<{ steps: Record<string, string> }>;
    expect(windows).toHaveLength(3);
    expect(windows.some((w) => Object.keys(w.steps).length === 0)).toBe(true);

    const carmen = findAccount('carmen-diaz')!;
    const model = wearableModel(carmen);
    let date = '2026-11-10';
    while (model.plan(date).worn) date = addDays(date, -1);
    const token = (await signIn(sim, { account: 'carmen-diaz' })).access_token;
    const [y, m, d] = date.split('-').map(Number);
    const [y2, m2, d2] = addDays(date, 1).split('-').map(Number);
    const unworn = await apiPost(
      sim,
      token,
      '/v4/users/me/dataTypes/steps/dataPoints:dailyRollUp',
      {
        range: {
          start: { date: { year: y, month: m, day: d } },
          end: { date: { year: y2, month: m2, day: d2 } },
        },
      },
    );
    expect(unworn.status).toBe(200);
    expect(unworn.body).toEqual({});
  });

  it.each([
    ['heart-rate', 14],
    ['total-calories', 14],
    ['steps', 90],
    ['weight', 90],
  ] as const)(
    '%s: a range of %i days is allowed, one more day is INVALID_ROLLUP_QUERY_DURATION',
    async (type, days) => {
      const end = Date.parse('2026-11-20T00:00:00Z');
      const body = (span: number) => ({
        range: {
          startTime: new Date(end - span * 86_400_000).toISOString(),
          endTime: new Date(end).toISOString(),
        },
        windowSize: '86400s',
      });
      expect(
        (await apiPost(sim, ava, `/v4/users/me/dataTypes/${type}/dataPoints:rollUp`, body(days)))
          .status,
      ).toBe(200);
      const over = await apiPost(
        sim,
        ava,
        `/v4/users/me/dataTypes/${type}/dataPoints:rollUp`,
        body(days + 1),
      );
      expect(over.status).toBe(400);
      expect(JSON.stringify(over.body)).toContain('INVALID_ROLLUP_QUERY_DURATION');
      const daily = await apiPost(
        sim,
        ava,
        `/v4/users/me/dataTypes/${type}/dataPoints:dailyRollUp`,
        {
          range: {
            start: { date: { year: 2026, month: 1, day: 1 } },
            end: { date: { year: 2026, month: 6, day: 1 } },
          },
        },
      );
      expect(daily.status).toBe(400);
    },
  );

  it('validates windowSize, the range and unknown fields', async () => {
    const range = { startTime: '2026-11-18T00:00:00Z', endTime: '2026-11-19T00:00:00Z' };
    const post = (body: unknown) =>
      apiPost(sim, ava, '/v4/users/me/dataTypes/steps/dataPoints:rollUp', body);
    expect((await post({ range, windowSize: '0.5s' })).status).toBe(400);
    expect((await post({ range, windowSize: '60' })).status).toBe(400);
    expect(
      (
        await post({
          range: { startTime: range.endTime, endTime: range.startTime },
          windowSize: '60s',
        })
      ).body,
    ).toMatchObject({
      error: { details: [{ reason: 'INVALID_TIME_RANGE' }, expect.anything()] },
    });
    expect(JSON.stringify((await post({ range, windowSize: '60s', window: 1 })).body)).toContain(
      'Unknown name \\"window\\"',
    );
    const fine = await post({ range, windowSize: '60s', pageSize: 10 });
    expect((fine.body.rollupDataPoints as unknown[]).length).toBe(10);
    expect(fine.body.nextPageToken).toEqual(expect.any(String));
  });
});

describe('data types and operations', () => {
  it.each([
    ['/v4/users/me/dataTypes/stepz/dataPoints', 'INVALID_PARENT_DATA_TYPE_COLLECTION'],
    ['/v4/users/me/dataTypes/total-calories/dataPoints', 'UNSUPPORTED_DATA_TYPE_ACTION'],
    ['/v4/users/me/dataTypes/floors/dataPoints', 'UNSUPPORTED_DATA_TYPE_ACTION'],
  ])('GET %s → 400 %s', async (path, reason) => {
    const response = await apiGet(sim, ava, path);
    expect(response.status).toBe(400);
    expect(errorResponse.parse(response.body).error.details?.[0]).toMatchObject({ reason });
  });

  it('rejects rollUp on a session type', async () => {
    const response = await apiPost(sim, ava, '/v4/users/me/dataTypes/sleep/dataPoints:rollUp', {
      range: { startTime: '2026-11-18T00:00:00Z', endTime: '2026-11-19T00:00:00Z' },
      windowSize: '3600s',
    });
    expect(response.status).toBe(400);
  });

  it('answers a known but unsimulated type with no data', async () => {
    const response = await list('blood-glucose');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({});
  });
});

describe('identity, profile, settings and paired devices', () => {
  it('returns the exact shapes', async () => {
    expect(identityResponse.parse((await apiGet(sim, ava, '/v4/users/me/identity')).body)).toEqual({
      name: 'users/me/identity',
      healthUserId: '1173016576421350648',
      legacyUserId: '7QXK2M',
    });
    profileResponse.parse((await apiGet(sim, ava, '/v4/users/me/profile')).body);
    expect(
      settingsResponse.parse((await apiGet(sim, ava, '/v4/users/me/settings')).body).timeZone,
    ).toBe('America/New_York');
    const devices = pairedDevicesResponse.parse(
      (await apiGet(sim, ava, '/v4/users/me/pairedDevices')).body,
    );
    expect(devices.pairedDevices?.map((d) => d.deviceType)).toEqual(['TRACKER', 'SCALE']);
  });

  it('pages paired devices and reports gaps: empty battery, days without sync', async () => {
    const first = await apiGet(sim, ava, '/v4/users/me/pairedDevices?pageSize=1');
    expect((first.body.pairedDevices as unknown[]).length).toBe(1);
    const second = await apiGet(
      sim,
      ava,
      `/v4/users/me/pairedDevices?pageSize=1&pageToken=${first.body.nextPageToken}`,
    );
    expect((second.body.pairedDevices as Array<{ deviceType: string }>)[0]?.deviceType).toBe(
      'SCALE',
    );

    const carmen = (await signIn(sim, { account: 'carmen-diaz' })).access_token;
    const carmenDevices = pairedDevicesResponse.parse(
      (await apiGet(sim, carmen, '/v4/users/me/pairedDevices')).body,
    );
    expect(carmenDevices.pairedDevices?.[0]).toMatchObject({
      batteryStatus: 'Empty',
      batteryLevel: 0,
    });

    const daniel = (await signIn(sim, { account: 'daniel-kim' })).access_token;
    const [tracker] =
      pairedDevicesResponse.parse((await apiGet(sim, daniel, '/v4/users/me/pairedDevices')).body)
        .pairedDevices ?? [];
    const lag = Date.parse(NOW) - Date.parse(tracker!.lastSyncTime);
    expect(lag).toBeGreaterThan(79 * 3_600_000);
    const [newest] = points(
      (await apiGet(sim, daniel, '/v4/users/me/dataTypes/heart-rate/dataPoints?pageSize=1')).body,
    );
    expect(Date.parse((newest!.heartRate as any).sampleTime.physicalTime)).toBeLessThan(
      Date.parse(tracker!.lastSyncTime),
    );
  });

  it('answers ACCOUNT_NOT_LINKED for a Google account without a Health profile', async () => {
    const eve = (await signIn(sim, { account: 'eve-schneider' })).access_token;
    const response = await apiGet(sim, eve, '/v4/users/me/dataTypes/steps/dataPoints');
    expect(response.status).toBe(400);
    const error = errorResponse.parse(response.body).error;
    expect(error.status).toBe('FAILED_PRECONDITION');
    expect(error.details?.[0]).toMatchObject({ reason: 'ACCOUNT_NOT_LINKED' });
  });

  it('accepts users/{own healthUserId}, refuses someone else, and needs credentials', async () => {
    expect((await apiGet(sim, ava, '/v4/users/1173016576421350648/identity')).status).toBe(200);
    expect((await apiGet(sim, ava, '/v4/users/2093718450026611937/identity')).status).toBe(403);
    const missing = await fetch(`${sim.baseUrl}/v4/users/me/identity`);
    expect(missing.status).toBe(401);
    expect(JSON.stringify(await missing.json())).toContain('CREDENTIALS_MISSING');
  });
});

describe('data sanity through the API', () => {
  it('heart rate stays within 35–200 bpm over a whole day', async () => {
    const day = points(
      (
        await list(
          'heart-rate',
          `pageSize=10000&${filterParam('heart_rate.sample_time.civil_time >= "2026-11-18" AND heart_rate.sample_time.civil_time < "2026-11-19"')}`,
        )
      ).body,
    );
    expect(day.length).toBeGreaterThan(5000);
    for (const point of day) {
      const bpm = Number((point.heartRate as any).beatsPerMinute);
      expect(bpm).toBeGreaterThanOrEqual(35);
      expect(bpm).toBeLessThanOrEqual(200);
    }
  });

  it('main sleep is at night and no steps are recorded while asleep', async () => {
    const sleeps = points((await list('sleep')).body).map((p) => p.sleep as any);
    const main = sleeps.filter((s) => s.metadata.mainSleep);
    expect(main.length).toBeGreaterThan(20);
    for (const sleep of main) {
      const localStartHour = new Date(
        Date.parse(sleep.interval.startTime) +
          Number.parseInt(sleep.interval.startUtcOffset) * 1000,
      ).getUTCHours();
      expect(localStartHour >= 20 || localStartHour < 4).toBe(true);
    }
    const lastWeek = main.filter(
      (s) => Date.parse(s.interval.startTime) > Date.parse('2026-11-12T00:00:00Z'),
    );
    const steps = points(
      (
        await list(
          'steps',
          `pageSize=10000&${filterParam('steps.interval.start_time >= "2026-11-11T00:00:00Z"')}`,
        )
      ).body,
    );
    for (const sleep of lastWeek) {
      const [start, end] = [
        Date.parse(sleep.interval.startTime),
        Date.parse(sleep.interval.endTime),
      ];
      const during = steps.filter((p) => {
        const t = Date.parse((p.steps as any).interval.startTime);
        return t >= start && t < end - 60_000;
      });
      expect(during).toEqual([]);
    }
  });
});
