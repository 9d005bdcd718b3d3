import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DEXCOM_ACCOUNTS, startDexcomSimulator, type RunningDexcomSimulator } from './index';
import {
  dexcomAlertSchema,
  dexcomCalibrationSchema,
  dexcomDataRangeSchema,
  dexcomDeviceSchema,
  dexcomEgvSchema,
  dexcomErrorSchema,
  dexcomEventSchema,
  dexcomListSchema,
} from './dexcom-schemas';

const NOW = Date.parse('2026-06-15T12:00:00Z');
const HOUR = 3_600_000;
const DAY = 86_400_000;
const fmt = (ms: number) => new Date(ms).toISOString().slice(0, 19);

const schemas = {
  egvs: dexcomListSchema('egv', dexcomEgvSchema),
  events: dexcomListSchema('event', dexcomEventSchema),
  calibrations: dexcomListSchema('calibration', dexcomCalibrationSchema),
  alerts: dexcomListSchema('alert', dexcomAlertSchema),
  devices: dexcomListSchema('device', dexcomDeviceSchema),
};

let sim: RunningDexcomSimulator;
const tokens = new Map<string, string>();

beforeAll(async () => {
  sim = await startDexcomSimulator({ startTime: NOW });
  for (const account of DEXCOM_ACCOUNTS) {
    tokens.set(account.id, String(sim.control.issueTokens({ accountId: account.id }).access_token));
  }
});
afterAll(() => sim.close());

async function get(path: string, account = 'SandboxUser1', server = sim) {
  const response = await fetch(`${server.baseUrl}/v3/users/self/${path}`, {
    headers: { authorization: `Bearer ${tokens.get(account)}` },
  });
  const text = await response.text();
  return { status: response.status, text, json: JSON.parse(text) as unknown };
}

function windowQuery(start: number, end: number) {
  return `startDate=${fmt(start)}&endDate=${fmt(end)}`;
}

async function list<K extends keyof typeof schemas>(
  resource: K,
  account: string,
  start: number,
  end: number,
) {
  const response = await get(`${resource}?${windowQuery(start, end)}`, account);
  expect(response.status).toBe(200);
  return schemas[resource].parse(response.json).records as z.infer<(typeof schemas)[K]>['records'];
}

describe('Dexcom v3 shapes and determinism', () => {
  it.each(['egvs', 'events', 'calibrations', 'alerts'] as const)(
    '%s: provider envelope and records, newest first, identical when repeated',
    async (resource) => {
      let total = 0;
      for (const account of DEXCOM_ACCOUNTS) {
        const path = `${resource}?${windowQuery(NOW - 30 * DAY, NOW)}`;
        const first = await get(path, account.id);
        expect(first.status).toBe(200);
        const records = schemas[resource].parse(first.json).records;
        const times = records.map((r) => r.systemTime);
        expect(times).toEqual([...times].sort().reverse());
        expect((await get(path, account.id)).text).toBe(first.text);
        total += records.length;
      }
      expect(total).toBeGreaterThan(0);
    },
  );

  it('devices: one record per display device with alert schedules', async () => {
    const response = await get('devices', 'SandboxUser4');
    const devices = schemas.devices.parse(response.json).records;
    expect(devices.map((d) => d.displayDevice)).toEqual(['iOS', 'touchscreenReceiver']);
    for (const device of devices) {
      expect(Date.parse(`${device.lastUploadDate}Z`)).toBeLessThanOrEqual(NOW);
      expect(
        device.alertSchedules.filter((s) => s.alertScheduleSettings.isDefaultSchedule),
      ).toHaveLength(1);
    }
    // Tidepool always sends dates; they are accepted too.
    expect((await get(`devices?${windowQuery(NOW - DAY, NOW)}`, 'SandboxUser4')).text).toBe(
      response.text,
    );
  });

  it('dataRange: covers at least 400 days for every account, ending before now minus the delay', async () => {
    for (const account of DEXCOM_ACCOUNTS) {
      const range = dexcomDataRangeSchema.parse((await get('dataRange', account.id)).json);
      expect(Date.parse(`${range.egvs.start.systemTime}Z`)).toBeLessThanOrEqual(NOW - 400 * DAY);
      const end = Date.parse(`${range.egvs.end.systemTime}Z`);
      expect(end).toBeLessThanOrEqual(NOW - HOUR);
      expect(range.events.start.systemTime <= range.events.end.systemTime).toBe(true);
    }
  });

  it('uses a different 64-hex userId per account, stable across tokens', async () => {
    const ids = new Set<string>();
    for (const account of DEXCOM_ACCOUNTS) {
      const first = schemas.devices.parse((await get('devices', account.id)).json).userId;
      ids.add(first);
    }
    expect(ids.size).toBe(DEXCOM_ACCOUNTS.length);
    const again = String(sim.control.issueTokens({ accountId: 'SandboxUser1' }).access_token);
    const response = await fetch(`${sim.baseUrl}/v3/users/self/devices`, {
      headers: { authorization: `Bearer ${again}` },
    });
    expect(ids.has(schemas.devices.parse(await response.json()).userId)).toBe(true);
  });

  it('uses a different userId for the same account seen by another client app', async () => {
    const other = await startDexcomSimulator({
      startTime: NOW,
      clients: [
        { clientId: 'app-a', clientSecret: 'a' },
        { clientId: 'app-b', clientSecret: 'b' },
      ],
    });
    try {
      const userId = async (clientId: string) => {
        const token = String(
          other.control.issueTokens({ accountId: 'SandboxUser2', clientId }).access_token,
        );
        const response = await fetch(`${other.baseUrl}/v3/users/self/devices`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return schemas.devices.parse(await response.json()).userId;
      };
      expect(await userId('app-a')).not.toBe(await userId('app-b'));
    } finally {
      await other.close();
    }
  });
});

describe('Dexcom date windows', () => {
  it('allows exactly 30 days and refuses 30 days and one second with 400', async () => {
    expect((await get(`egvs?${windowQuery(NOW - 30 * DAY, NOW)}`)).status).toBe(200);
    const tooWide = await get(`egvs?${windowQuery(NOW - 30 * DAY - 1000, NOW)}`);
    expect(tooWide.status).toBe(400);
    expect(dexcomErrorSchema.parse(tooWide.json).error_description).toMatch(/30 days/);
  });

  it('refuses missing, malformed, offset-carrying and reversed dates', async () => {
    for (const query of [
      `startDate=${fmt(NOW - DAY)}`,
      '',
      `startDate=2026-06-01&endDate=2026-06-02`,
      `startDate=${fmt(NOW - DAY)}Z&endDate=${fmt(NOW)}Z`,
      `startDate=2026-02-30T00:00:00&endDate=2026-03-02T00:00:00`,
      windowQuery(NOW, NOW - DAY),
    ]) {
      for (const resource of ['egvs', 'events', 'calibrations', 'alerts']) {
        const response = await get(`${resource}?${query}`);
        expect(response.status, `${resource}?${query}`).toBe(400);
        dexcomErrorSchema.parse(response.json);
      }
    }
    expect((await get('devices?startDate=yesterday&endDate=today')).status).toBe(400);
  });

  it('compares dates with systemTime: start inclusive, end exclusive', async () => {
    const [latest] = await list('egvs', 'SandboxUser1', NOW - DAY, NOW);
    const t = Date.parse(`${latest!.systemTime}Z`);
    const including = await list('egvs', 'SandboxUser1', t, t + 1000);
    expect(including.map((r) => r.recordId)).toEqual([latest!.recordId]);
    expect(await list('egvs', 'SandboxUser1', t - 1000, t)).toEqual([]);
  });

  it('returns an empty list before the data starts and in the future', async () => {
    expect(
      await list(
        'egvs',
        'SandboxUser1',
        Date.parse('2020-01-01T00:00:00Z'),
        Date.parse('2020-01-20T00:00:00Z'),
      ),
    ).toEqual([]);
    expect(await list('egvs', 'SandboxUser1', NOW, NOW + 10 * DAY)).toEqual([]);
  });

  it('validates lastSyncTime on dataRange and narrows the range to later uploads', async () => {
    expect((await get(`dataRange?lastSyncTime=${fmt(NOW - DAY)}`)).status).toBe(400);
    const since = NOW - 2 * DAY;
    const range = dexcomDataRangeSchema.parse(
      (await get(`dataRange?lastSyncTime=${new Date(since).toISOString()}`)).json,
    );
    const start = Date.parse(`${range.egvs.start.systemTime}Z`);
    expect(start).toBeGreaterThan(since);
    expect(start).toBeLessThan(since + 15 * 60_000);
  });
});

describe('Dexcom synthetic data', () => {
  it('has EGVs every 5 minutes within sensor sessions', async () => {
    const records = (await list('egvs', 'SandboxUser7', NOW - 30 * DAY, NOW)).reverse();
    const gaps = records
      .slice(1)
      .map(
        (r, i) =>
          (Date.parse(`${r.systemTime}Z`) - Date.parse(`${records[i]!.systemTime}Z`)) / 1000,
      );
    expect(gaps.every((g) => g >= 300)).toBe(true);
    expect(gaps.filter((g) => g === 300).length / gaps.length).toBeGreaterThan(0.99);
  });

  it('keeps glucose within 40–400 with consistent trends for every account over 90 days', async () => {
    const trendFor = (rate: number) =>
      rate > 3
        ? 'doubleUp'
        : rate > 2
          ? 'singleUp'
          : rate > 1
            ? 'fortyFiveUp'
            : rate >= -1
              ? 'flat'
              : rate >= -2
                ? 'fortyFiveDown'
                : rate >= -3
                  ? 'singleDown'
                  : 'doubleDown';
    for (const account of DEXCOM_ACCOUNTS) {
      const values: number[] = [];
      const problems: string[] = [];
      for (let end = NOW; end > NOW - 90 * DAY; end -= 30 * DAY) {
        for (const egv of await list('egvs', account.id, end - 30 * DAY, end)) {
          // Collected, not asserted one by one: 180,000 readings would make the test slow.
          const value = egv.value ?? Number.NaN;
          if (!(value >= 40 && value <= 400)) problems.push(`${egv.systemTime} value ${egv.value}`);
          if (egv.status === 'low' && value !== 40)
            problems.push(`${egv.systemTime} low but ${value}`);
          if (egv.status === 'high' && value !== 400)
            problems.push(`${egv.systemTime} high but ${value}`);
          const expected = egv.trendRate === null ? 'notComputable' : trendFor(egv.trendRate);
          if (egv.trend !== expected)
            problems.push(`${egv.systemTime} trend ${egv.trend} for rate ${egv.trendRate}`);
          values.push(value);
        }
      }
      expect(problems, account.id).toEqual([]);
      const mean = values.reduce((s, v) => s + v, 0) / values.length;
      expect(mean, account.id).toBeGreaterThan(85);
      expect(mean, account.id).toBeLessThan(200);
      // Realistic curves move: neither flat lines nor noise.
      expect(Math.max(...values) - Math.min(...values), account.id).toBeGreaterThan(60);
    }
  });

  it('logs plausible events with string values', async () => {
    const events = await list('events', 'SandboxUser1', NOW - 7 * DAY, NOW);
    const carbs = events.filter((e) => e.eventType === 'carbs');
    const insulin = events.filter((e) => e.eventType === 'insulin');
    expect(carbs.length).toBeGreaterThan(10);
    expect(insulin.some((e) => e.eventSubType === 'fastActing')).toBe(true);
    expect(insulin.some((e) => e.eventSubType === 'longActing')).toBe(true);
    for (const e of carbs) {
      expect(e.unit).toBe('grams');
      expect(e.eventSubType).toBeNull();
      expect(Number(e.value)).toBeGreaterThan(0);
    }
    for (const e of insulin) expect(e.unit).toBe('units');
  });

  it('has an account with days without a sensor', async () => {
    let longest = 0;
    for (let end = NOW; end > NOW - 120 * DAY; end -= 30 * DAY) {
      const records = (await list('egvs', 'SandboxUser5', end - 30 * DAY, end)).reverse();
      for (let i = 1; i < records.length; i++) {
        longest = Math.max(
          longest,
          Date.parse(`${records[i]!.systemTime}Z`) - Date.parse(`${records[i - 1]!.systemTime}Z`),
        );
      }
    }
    expect(longest).toBeGreaterThan(DAY);
  });

  it('serves receiver data only after the receiver was docked, days late', async () => {
    const lagging = await startDexcomSimulator({ startTime: NOW });
    try {
      const token = () =>
        String(lagging.control.issueTokens({ accountId: 'SandboxUser3' }).access_token);
      const end = async () => {
        const response = await fetch(`${lagging.baseUrl}/v3/users/self/dataRange`, {
          headers: { authorization: `Bearer ${token()}` },
        });
        return Date.parse(
          `${dexcomDataRangeSchema.parse(await response.json()).egvs.end.systemTime}Z`,
        );
      };
      const before = await end();
      const appEnd = Date.parse(
        `${dexcomDataRangeSchema.parse((await get('dataRange', 'SandboxUser1')).json).egvs.end.systemTime}Z`,
      );
      expect(before).toBeLessThan(appEnd - 6 * HOUR);
      lagging.control.advanceClock(6 * DAY);
      expect(await end()).toBeGreaterThan(before + DAY);
    } finally {
      await lagging.close();
    }
  });
});
