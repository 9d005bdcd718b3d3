import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OMRON_ACCOUNTS, startOmronSimulator, type RunningOmronSimulator } from './index';
import {
  omronApiErrorSchema,
  omronMeasurementResponseSchema,
  type OmronMeasurementResponse,
} from './omron-schemas';

const NOW = '2026-06-15T12:00:00Z';
const [MARIA, JAMES, AIKO, ROBERT, LINDA] = OMRON_ACCOUNTS.map((a) => a.id) as [
  string,
  string,
  string,
  string,
  string,
];

type Result = OmronMeasurementResponse['result'];

let sim: RunningOmronSimulator;
const tokens = new Map<string, string>();

beforeAll(async () => {
  sim = await startOmronSimulator({ startTime: NOW });
  for (const account of OMRON_ACCOUNTS) {
    tokens.set(account.id, String(sim.control.issueTokens({ accountId: account.id }).access_token));
  }
});
afterAll(() => sim.close());

async function post(params: Record<string, string>, token: string | null = tokens.get(MARIA)!) {
  const response = await fetch(sim.endpoints.measurement, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: new URLSearchParams(params),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    json: text ? (JSON.parse(text) as unknown) : null,
  };
}

async function result(params: Record<string, string>, accountId = MARIA): Promise<Result> {
  const response = await post(params, tokens.get(accountId)!);
  expect(response.status).toBe(200);
  return omronMeasurementResponseSchema.parse(response.json).result;
}

describe('Omron /measurement shape and determinism', () => {
  it.each([
    ['bloodpressure', 'bloodPressure'],
    ['weight', 'weight'],
    ['activity', 'activity'],
  ] as const)(
    'type=%s returns the provider envelope with only %s, identical when repeated',
    async (type, key) => {
      const params = { since: '2026-05-01', type, sortOrder: 'asc' };
      const first = await post(params);
      const parsed = omronMeasurementResponseSchema.parse(first.json).result;
      expect(Object.keys(parsed).sort()).toEqual(
        [key, 'measurementCount', 'nextPaginationKey', 'truncated'].sort(),
      );
      expect(parsed[key]!.length).toBeGreaterThan(10);
      expect(parsed.measurementCount).toBe(parsed[key]!.length);
      expect((await post(params)).text).toBe(first.text);
    },
  );

  it('returns all three types without `type`, and the same data after a restart', async () => {
    const all = await result({ since: '2026-06-01' });
    expect(all.bloodPressure!.length).toBeGreaterThan(0);
    expect(all.weight!.length).toBeGreaterThan(0);
    expect(all.activity!.length).toBeGreaterThan(0);
    expect(all.measurementCount).toBe(
      all.bloodPressure!.length + all.weight!.length + all.activity!.length,
    );

    const restarted = await startOmronSimulator({ startTime: NOW });
    try {
      // Tokens are self-verifying, so the old token works against the new process too.
      const response = await fetch(restarted.endpoints.measurement, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Bearer ${tokens.get(MARIA)}`,
        },
        body: new URLSearchParams({ since: '2026-06-01' }),
      });
      expect(omronMeasurementResponseSchema.parse(await response.json()).result).toEqual(all);
    } finally {
      await restarted.close();
    }
  });

  it('keeps dateTime, dateTimeLocal and dateTimeUtcOffset consistent (DST-aware)', async () => {
    const { bloodPressure } = await result({ since: '2026-01-01', type: 'bloodpressure' });
    const offsets = new Set(bloodPressure!.map((r) => r.dateTimeUtcOffset));
    expect(offsets).toEqual(new Set(['-05:00', '-04:00'])); // New York: winter and summer time
    for (const r of bloodPressure!) {
      const sign = r.dateTimeUtcOffset.startsWith('-') ? -1 : 1;
      const [h, m] = r.dateTimeUtcOffset.slice(1).split(':').map(Number) as [number, number];
      const local = Date.parse(`${r.dateTimeLocal}Z`);
      expect(Date.parse(r.dateTime)).toBe(local - sign * (h * 60 + m) * 60_000);
    }
  });

  it('adds hourly activity only when includeHourlyActivity=true', async () => {
    const plain = await result({ since: '2026-06-10', type: 'activity' });
    expect(plain.activity!.every((r) => r.hourlyActivity === undefined)).toBe(true);
    const hourly = await result({
      since: '2026-06-10',
      type: 'activity',
      includeHourlyActivity: 'true',
    });
    for (const record of hourly.activity!) {
      expect(record.hourlyActivity).toHaveLength(24);
      expect(record.hourlyActivity!.reduce((sum, h) => sum + h.steps, 0)).toBe(record.steps);
    }
  });
});

describe('Omron filters and pagination', () => {
  it('filters by local measurement date with since, and returns nothing for a future since', async () => {
    const { bloodPressure } = await result({ since: '2026-06-10', type: 'bloodpressure' });
    expect(bloodPressure!.every((r) => r.dateTimeLocal.slice(0, 10) >= '2026-06-10')).toBe(true);
    const earlier = await result({ since: '2026-06-09', type: 'bloodpressure' });
    expect(earlier.bloodPressure!.some((r) => r.dateTimeLocal.startsWith('2026-06-09'))).toBe(true);
    const future = await result({ since: '2026-07-01' });
    expect(future.measurementCount).toBe(0);
  });

  it('sorts with sortOrder and pages with limit, truncated and nextPaginationKey', async () => {
    const asc = (await result({ since: '2026-04-01', type: 'bloodpressure', sortOrder: 'asc' }))
      .bloodPressure!;
    const desc = (await result({ since: '2026-04-01', type: 'bloodpressure', sortOrder: 'desc' }))
      .bloodPressure!;
    expect(desc).toEqual([...asc].reverse());
    expect(asc.map((r) => r.dateTime)).toEqual([...asc.map((r) => r.dateTime)].sort());

    for (const [order, full] of [
      ['asc', asc],
      ['desc', desc],
    ] as const) {
      const pages: number[][] = [];
      let key: string | null = null;
      do {
        const page: Result = await result({
          since: '2026-04-01',
          type: 'bloodpressure',
          sortOrder: order,
          limit: '40',
          ...(key ? { paginationKey: key } : {}),
        });
        pages.push(page.bloodPressure!.map((r) => r.id));
        expect(page.truncated).toBe(page.nextPaginationKey !== null);
        key = page.nextPaginationKey;
      } while (key && pages.length < 100);
      expect(pages.slice(0, -1).every((p) => p.length === 40)).toBe(true);
      expect(pages.flat()).toEqual(full.map((r) => r.id));
    }
  });

  it('answers bad parameters with 400 in the API error shape', async () => {
    const cases: Array<Record<string, string>> = [
      { type: 'bloodpressure' },
      { since: '2026/06/01' },
      { since: '2026-02-30' },
      { since: '2026-06-01', type: 'heartrate' },
      { since: '2026-06-01', limit: 'ten' },
      { since: '2026-06-01', sortOrder: 'newest' },
      { since: '2026-06-01', paginationKey: 'garbage' },
    ];
    for (const params of cases) {
      const response = await post(params);
      expect(response.status, JSON.stringify(params)).toBe(400);
      expect(omronApiErrorSchema.parse(response.json).status).toBe(400);
    }
  });

  it('answers a missing or invalid token with 401 and a Bearer challenge', async () => {
    const missing = await post({ since: '2026-06-01' }, null);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const invalid = await post({ since: '2026-06-01' }, 'not-a-token');
    expect(invalid.status).toBe(401);
    expect(invalid.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });

  it('only returns types the token has a scope for', async () => {
    const bpOnly = String(
      sim.control.issueTokens({ accountId: MARIA, scope: 'bloodpressure openid' }).access_token,
    );
    const forbidden = await post({ since: '2026-06-01', type: 'weight' }, bpOnly);
    expect(forbidden.status).toBe(403);
    const all = omronMeasurementResponseSchema.parse(
      (await post({ since: '2026-06-01' }, bpOnly)).json,
    ).result;
    expect(all.bloodPressure!.length).toBeGreaterThan(0);
    expect(all.weight).toEqual([]);
  });
});

describe('Omron synthetic data', () => {
  const sinceDay = (days: number) =>
    new Date(Date.parse(NOW) - days * 86_400_000).toISOString().slice(0, 10);

  it('covers 400+ days and is physiologically plausible for every account', async () => {
    for (const account of OMRON_ACCOUNTS) {
      const all = await result({ since: sinceDay(430) }, account.id);
      const bp = all.bloodPressure!;
      expect(bp[0]!.dateTimeLocal.slice(0, 10) <= sinceDay(400), account.name).toBe(true);
      for (const r of bp) {
        expect(r.systolic).toBeGreaterThan(r.diastolic);
        expect(r.systolic - r.diastolic).toBeGreaterThanOrEqual(20);
        expect(r.systolic).toBeGreaterThanOrEqual(85);
        expect(r.systolic).toBeLessThanOrEqual(210);
        expect(r.diastolic).toBeGreaterThanOrEqual(45);
        expect(r.pulse).toBeGreaterThanOrEqual(40);
        expect(r.pulse).toBeLessThanOrEqual(150);
      }
      for (const w of all.weight!) {
        expect(w.weight).toBeGreaterThan(35);
        expect(w.weight).toBeLessThan(200);
        expect(w.bmi).toBeGreaterThan(15);
        expect(w.bmi).toBeLessThan(45);
      }
      for (const a of all.activity!) expect(a.aerobicSteps).toBeLessThanOrEqual(a.steps);
    }
  });

  it('has normal and hypertensive blood-pressure profiles', async () => {
    const mean = (values: number[]) => values.reduce((s, v) => s + v, 0) / values.length;
    const systolic = async (id: string) =>
      mean(
        (await result({ since: sinceDay(90), type: 'bloodpressure' }, id)).bloodPressure!.map(
          (r) => r.systolic,
        ),
      );
    expect(await systolic(MARIA)).toBeLessThan(125);
    expect(await systolic(JAMES)).toBeGreaterThanOrEqual(140);
    const aiko = (await result({ since: sinceDay(365), type: 'bloodpressure' }, AIKO))
      .bloodPressure!;
    expect(aiko.some((r) => r.possibleAfib === true)).toBe(true);
  });

  it('has accounts with weeks-long gaps and others measuring nearly every day', async () => {
    const longestGap = async (id: string) => {
      const days = [
        ...new Set(
          (await result({ since: sinceDay(400), type: 'bloodpressure' }, id)).bloodPressure!.map(
            (r) => r.dateTimeLocal.slice(0, 10),
          ),
        ),
      ];
      let gap = 0;
      for (let i = 1; i < days.length; i++)
        gap = Math.max(gap, (Date.parse(days[i]!) - Date.parse(days[i - 1]!)) / 86_400_000);
      return gap;
    };
    expect(await longestGap(ROBERT)).toBeGreaterThanOrEqual(7);
    expect(await longestGap(MARIA)).toBeLessThanOrEqual(4);
  });

  it('shows data of a rarely-syncing account only after its next sync', async () => {
    const lagging = await startOmronSimulator({ startTime: NOW });
    try {
      const fetchIds = async () => {
        // A fresh token each time: an hour-long token would not survive the clock jump.
        const token = String(lagging.control.issueTokens({ accountId: LINDA }).access_token);
        const response = await fetch(lagging.endpoints.measurement, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Bearer ${token}`,
          },
          body: new URLSearchParams({ since: sinceDay(20), type: 'bloodpressure' }),
        });
        return omronMeasurementResponseSchema.parse(await response.json()).result.bloodPressure!;
      };
      const before = await fetchIds();
      lagging.control.advanceClock(8 * 86_400_000);
      const after = await fetchIds();
      const late = after.filter(
        (r) => Date.parse(r.dateTime) < Date.parse(NOW) && !before.some((b) => b.id === r.id),
      );
      expect(late.length).toBeGreaterThan(0);
    } finally {
      await lagging.close();
    }
  });
});
