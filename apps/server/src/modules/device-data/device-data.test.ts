import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@trialpulse/shared';
import {
  OMRON_MESSAGES,
  dexcomQueryString,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { addParticipant, createTrial } from '../participants/test-support';
import { signIn } from '../trials/test-support';
import { allowAllBrands, connectionRow, linkAsStaff, simulatorEnv } from '../devices/test-support';
import { readingsServiceFor } from '../sync/test-support';
import { syncCursors } from '../../db/schema';
import { omronReadingsOf } from '../../providers/omron/omron-data';
import { dexcomReadingsOf } from '../../providers/dexcom/dexcom-data';

/**
 * The Omron and Dexcom data calls against the provider simulators over HTTP: the answers
 * are exactly what the simulator holds for the query (compared with a direct call to the
 * simulator with a token of the same account), a covered range is answered from stored
 * readings with the same answer, and roles and teams are enforced.
 */
const OMRON_ACCOUNT = '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f01';
const DEXCOM_ACCOUNT = 'SandboxUser1';
const DAY = 86_400_000;

let sims: AllSimulators;
let ctx: TestApp;
const db = () => ctx.database.db;
const clientsA = {} as Record<Role, TestClient>;
const clientsB = {} as Record<Role, TestClient>;
const usersA = {} as Record<Role, TestUser>;
let userNotInTrial: TestClient;
let participantId: number;
let teamA: number;
let omronToken: string;
let dexcomToken: string;

beforeAll(async () => {
  sims = await startAllSimulators();
  ctx = await createTestApp({ env: simulatorEnv(sims) });
  teamA = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  const teamB = (
    await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })
  ).id;
  await allowAllBrands(db(), teamA);
  await allowAllBrands(db(), teamB);
  for (const role of ROLES) {
    usersA[role] = await createStaffUser(db(), { role, teamId: teamA });
    clientsA[role] = await signIn(ctx.app, db(), usersA[role]);
    clientsB[role] = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role, teamId: teamB }),
    );
  }
  userNotInTrial = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Viewer', teamId: teamA }),
  );
  const trial = await createTrial(db(), clientsA.Admin, [usersA.User.email, usersA.Viewer.email]);
  const email = `device-data-${process.pid}@study.example.org`;
  participantId = (await addParticipant(clientsA.Admin, { trialId: trial.id, email }))
    .participantId;
  const omron = await linkAsStaff(clientsA.User, participantId, 'Omron', {
    account: OMRON_ACCOUNT,
  });
  expect(omron.statusCode, omron.body).toBe(200);
  const dexcom = await linkAsStaff(
    clientsA.User,
    participantId,
    'Dexcom',
    { account: DEXCOM_ACCOUNT },
    { email },
  );
  expect(dexcom.statusCode, dexcom.body).toBe(200);
  omronToken = (
    (await sims.omron.control.issueTokens({ accountId: OMRON_ACCOUNT })) as { access_token: string }
  ).access_token;
  dexcomToken = (
    (await sims.dexcom.control.issueTokens({ accountId: DEXCOM_ACCOUNT })) as {
      access_token: string;
    }
  ).access_token;
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

const day = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * DAY).toISOString().slice(0, 10);

/** What the Omron simulator answers for a query, asked directly with the account's own token. */
async function omronDirect(form: Record<string, string>) {
  const response = await fetch(sims.omron.endpoints.measurement, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${omronToken}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: unknown }).result as {
    bloodPressure: Record<string, unknown>[];
    weight: Record<string, unknown>[];
  };
}

async function dexcomDirect(resource: 'egvs' | 'events' | 'calibrations', start: Date, end: Date) {
  const url = new URL(`${sims.dexcom.endpoints.api}/${resource}`);
  url.searchParams.set('startDate', start.toISOString().slice(0, 19));
  url.searchParams.set('endDate', end.toISOString().slice(0, 19));
  const response = await fetch(url, { headers: { authorization: `Bearer ${dexcomToken}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { records: Record<string, unknown>[] }).records;
}

const omronCall = (client: TestClient, body: Record<string, unknown>) =>
  client.post(`/api/getOmronParticipantData/${participantId}`, body);

describe('POST /api/getOmronParticipantData/{id}', () => {
  it.each([
    ['bloodpressure', 'asc', 0],
    ['bloodpressure', 'desc', 0],
    ['bloodpressure', 'desc', 10],
    ['bloodpressure', 'asc', 30],
    ['weight', 'desc', 0],
    ['weight', 'asc', 10],
  ] as const)(
    '%s, sortOrder %s, limit %i: exactly the simulator readings',
    async (queryStr, sortOrder, limit) => {
      const since = day(-20);
      const response = await omronCall(clientsA.Viewer, { queryStr, since, sortOrder, limit });
      expect(response.statusCode, response.body).toBe(200);
      const body = response.json();
      expect(body.source).toBe('live');
      const direct = await omronDirect({ type: queryStr, since, sortOrder, limit: String(limit) });
      if (queryStr === 'bloodpressure') {
        expect(body.weight).toBeUndefined();
        expect(direct.bloodPressure.length).toBeGreaterThan(limit === 0 ? 10 : limit - 1);
        expect(body.bloodPressure).toEqual(
          direct.bloodPressure.map((r) => ({
            dateTime: r.dateTime,
            dateTimeLocal: r.dateTimeLocal,
            dateTimeUtcOffset: r.dateTimeUtcOffset,
            systolic: r.systolic,
            diastolic: r.diastolic,
            pulse: r.pulse ?? null,
            deviceType: r.deviceType ?? null,
          })),
        );
      } else {
        expect(body.bloodPressure).toBeUndefined();
        expect(direct.weight.length).toBeGreaterThan(0);
        expect(body.weight).toEqual(
          direct.weight.map((r) => ({
            dateTime: r.dateTime,
            dateTimeLocal: r.dateTimeLocal,
            dateTimeUtcOffset: r.dateTimeUtcOffset,
            weight: r.weight,
            deviceType: r.deviceType ?? null,
          })),
        );
      }
    },
  );

  it('since moves the first local date', async () => {
    const since = day(-3);
    const body = (
      await omronCall(clientsA.User, {
        queryStr: 'bloodpressure',
        since,
        sortOrder: 'asc',
        limit: 0,
      })
    ).json();
    const direct = await omronDirect({ type: 'bloodpressure', since, sortOrder: 'asc' });
    expect(body.bloodPressure.map((r: { dateTimeLocal: string }) => r.dateTimeLocal)).toEqual(
      direct.bloodPressure.map((r) => r.dateTimeLocal),
    );
    expect(
      body.bloodPressure.every(
        (r: { dateTimeLocal: string }) => r.dateTimeLocal.slice(0, 10) >= since,
      ),
    ).toBe(true);
  });

  it('refuses an empty form with the three messages and a future start date', async () => {
    const empty = await omronCall(clientsA.User, {});
    expect(empty.statusCode).toBe(400);
    const messages = (empty.json().errors as { message: string }[]).map((e) => e.message);
    expect(messages).toEqual(
      expect.arrayContaining([OMRON_MESSAGES.category, OMRON_MESSAGES.since, OMRON_MESSAGES.limit]),
    );
    const badLimit = await omronCall(clientsA.User, {
      queryStr: 'weight',
      since: day(-1),
      limit: 7,
    });
    expect(badLimit.statusCode).toBe(400);
    const future = await omronCall(clientsA.User, {
      queryStr: 'weight',
      since: day(3),
      sortOrder: 'asc',
      limit: 0,
    });
    expect(future.statusCode).toBe(400);
    expect(future.json().message).toBe(OMRON_MESSAGES.sinceInFuture);
  });
});

describe('GET /api/getDexcomParticipantData/{id}/{query}', () => {
  it("returns the simulator's EGVs, events and calibrations for the range", async () => {
    const start = new Date(Math.floor((Date.now() - 4 * DAY) / 1000) * 1000);
    const end = new Date(start.getTime() + 2 * DAY);
    const response = await clientsA.Viewer.get(
      `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(dexcomQueryString({ start, end }))}`,
    );
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json();
    expect(body.source).toBe('live');
    const egvs = await dexcomDirect('egvs', start, end);
    expect(egvs.length).toBeGreaterThan(400);
    expect(body.egvs).toEqual(
      egvs.map((r) => ({
        systemTime: `${r.systemTime}Z`,
        utcOffset: String(r.displayTime).slice(-6),
        value: r.value,
        status: r.status ?? null,
        trend: r.trend ?? null,
        trendRate: r.trendRate ?? null,
      })),
    );
    const events = await dexcomDirect('events', start, end);
    expect(
      body.events.map((e: { eventType: string; value: string }) => [e.eventType, e.value]).sort(),
    ).toEqual(events.map((e) => [e.eventType, e.value]).sort());
    const calibrations = await dexcomDirect('calibrations', start, end);
    expect(body.calibrations.map((c: { value: number }) => c.value)).toEqual(
      calibrations.map((c) => c.value),
    );
    expect(body.devices.length).toBeGreaterThan(0);
    expect(body.devices[0].transmitterGeneration).toBe(egvs[0]!.transmitterGeneration);
  });

  it('answers only the record types asked for, and refuses a bad query', async () => {
    const ok = await clientsA.User.get(
      `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(`startDate=${day(-3)}&endDate=${day(-3)}&records=egvs`)}`,
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(Object.keys(ok.json()).sort()).toEqual([
      'egvs',
      'endDate',
      'source',
      'startDate',
      'unit',
    ]);
    // A bare end date includes that day: one day of 5-minute readings at most.
    expect(ok.json().egvs.length).toBeLessThanOrEqual(288);
    for (const query of [
      'startDate=2026-01-01',
      'startDate=x&endDate=2026-01-02',
      'startDate=2026-01-01&endDate=2026-06-01',
      'startDate=2026-01-02&endDate=2026-01-01T00:00:00',
      'startDate=2026-01-01&endDate=2026-01-02&records=alerts',
    ]) {
      const response = await clientsA.User.get(
        `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(query)}`,
      );
      expect(response.statusCode, query).toBe(400);
    }
  });
});

describe('stored readings answer a covered range the same as the provider', () => {
  it('Omron and Dexcom: source stored, same answer', async () => {
    const omronQuery = {
      queryStr: 'bloodpressure',
      since: day(-10),
      sortOrder: 'desc',
      limit: 30,
    } as const;
    const weightQuery = {
      queryStr: 'weight',
      since: day(-10),
      sortOrder: 'asc',
      limit: 0,
    } as const;
    const start = new Date(Math.floor((Date.now() - 6 * DAY) / 1000) * 1000);
    const dexcomPath = `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(dexcomQueryString({ start, end: new Date(start.getTime() + DAY) }))}`;
    const liveBp = (await omronCall(clientsA.User, omronQuery)).json();
    const liveWeight = (await omronCall(clientsA.User, weightQuery)).json();
    const liveDexcom = (await clientsA.User.get(dexcomPath)).json();
    expect([liveBp.source, liveWeight.source, liveDexcom.source]).toEqual(['live', 'live', 'live']);

    // What the sync would have stored: everything of the last 40 days, and cursors up to now.
    const owner = { participantId, teamId: teamA };
    const all = await omronDirect({ since: day(-40), sortOrder: 'asc' });
    const dexcomFrom = new Date(Date.now() - 20 * DAY);
    const dexcomRecords = {
      egvs: (await dexcomDirect('egvs', dexcomFrom, new Date())) as never[],
      events: (await dexcomDirect('events', dexcomFrom, new Date())) as never[],
      calibrations: (await dexcomDirect('calibrations', dexcomFrom, new Date())) as never[],
    };
    const readings = readingsServiceFor(db());
    await readings.store([
      ...omronReadingsOf(owner, all as never),
      ...dexcomReadingsOf(owner, dexcomRecords),
    ]);
    const connections = await connectionRow(db(), participantId);
    const now = new Date();
    for (const connection of connections) {
      const metrics =
        connection.upstream === 'omron' ? ['systolic', 'weight'] : ['egv', 'events', 'calibration'];
      const backfillFrom = new Date(
        now.getTime() - (connection.upstream === 'omron' ? 41 : 20) * DAY,
      );
      for (const metricKey of metrics) {
        // As the sync records what it fetched (its repository belongs to the sync module).
        await db().insert(syncCursors).values({
          participantDeviceId: connection.id,
          metricKey,
          teamId: teamA,
          backfillFrom,
          syncedUntil: now,
        });
      }
    }

    const storedBp = (await omronCall(clientsA.User, omronQuery)).json();
    const storedWeight = (await omronCall(clientsA.User, weightQuery)).json();
    const storedDexcom = (await clientsA.User.get(dexcomPath)).json();
    expect([storedBp.source, storedWeight.source, storedDexcom.source]).toEqual([
      'stored',
      'stored',
      'stored',
    ]);
    expect(storedBp.bloodPressure.length).toBeGreaterThan(5);
    expect({ ...storedBp, source: 'live' }).toEqual(liveBp);
    expect({ ...storedWeight, source: 'live' }).toEqual(liveWeight);
    expect({ ...storedDexcom, source: 'live' }).toEqual(liveDexcom);
    expect(storedDexcom.egvs.length).toBeGreaterThan(200);

    // A range the sync has not reached is fetched live again.
    const older = await omronCall(clientsA.User, { ...omronQuery, since: day(-60) });
    expect(older.json().source).toBe('live');

    // The stored rows, paged with provenance, for /ParticipantDataPage.
    const page = await clientsA.Viewer.get(
      `/api/participantReadings/${participantId}/omron?pageIndex=0&pageSize=10`,
    );
    expect(page.statusCode, page.body).toBe(200);
    expect(page.json().rows).toHaveLength(10);
    expect(page.json().total).toBe(omronReadingsOf(owner, all as never).length);
    expect(page.json().rows[0]).toMatchObject({ brand: 'Omron', upstream: 'omron' });
    const egvPage = await clientsA.Viewer.get(
      `/api/participantReadings/${participantId}/dexcom?pageIndex=1&pageSize=20&metric=egv`,
    );
    expect(egvPage.json().rows.every((row: { metricKey: string }) => row.metricKey === 'egv')).toBe(
      true,
    );
    const overview = await clientsA.Viewer.get(`/api/participantOverview/${participantId}`);
    expect(overview.statusCode).toBe(200);
    const omronTile = overview.json().brands.find((b: { brand: string }) => b.brand === 'Omron');
    // What the sync stores from the scale too (omronReadings): body fat and BMI.
    expect(omronTile.metrics.map((m: { metricKey: string }) => m.metricKey).sort()).toEqual([
      'bmi',
      'body_fat',
      'diastolic',
      'pulse',
      'systolic',
      'weight',
    ]);
  });
});

describe('roles and teams', () => {
  const calls = (): Array<[string, (c: TestClient) => Promise<{ statusCode: number }>]> => [
    [
      'omron',
      (c) => omronCall(c, { queryStr: 'weight', since: day(-2), sortOrder: 'asc', limit: 10 }),
    ],
    [
      'dexcom',
      (c) =>
        c.get(
          `/api/getDexcomParticipantData/${participantId}/${encodeURIComponent(`startDate=${day(-3)}&endDate=${day(-3)}`)}`,
        ),
    ],
    [
      'readings',
      (c) => c.get(`/api/participantReadings/${participantId}/omron?pageIndex=0&pageSize=10`),
    ],
    ['overview', (c) => c.get(`/api/participantOverview/${participantId}`)],
  ];

  it('every staff role of the team may read', async () => {
    for (const role of ROLES) {
      for (const [name, call] of calls())
        expect((await call(clientsA[role])).statusCode, `${role} ${name}`).toBe(200);
    }
  });

  it('another team gets 404 on every call; so does a Viewer who is not a trial user', async () => {
    for (const role of ROLES) {
      for (const [name, call] of calls())
        expect((await call(clientsB[role])).statusCode, `${role} ${name}`).toBe(404);
    }
    for (const [name, call] of calls())
      expect((await call(userNotInTrial)).statusCode, name).toBe(404);
  });

  it('the raw calls are for Sys_Admin only', async () => {
    const rawOmron = (c: TestClient) =>
      c.post(`/api/omronParticipantDataRaw/${participantId}`, {
        queryStr: 'bloodpressure',
        since: day(-2),
        sortOrder: 'asc',
        limit: 10,
      });
    const rawDexcom = (c: TestClient) =>
      c.get(
        `/api/dexcomParticipantDataRaw/${participantId}/${encodeURIComponent(`startDate=${day(-3)}&endDate=${day(-3)}`)}`,
      );
    for (const role of ROLES) {
      const expected = role === 'Sys_Admin' ? 200 : 403;
      expect((await rawOmron(clientsA[role])).statusCode, role).toBe(expected);
      expect((await rawDexcom(clientsA[role])).statusCode, role).toBe(expected);
    }
    const raw = (await rawOmron(clientsA.Sys_Admin)).json();
    expect(raw.bloodPressure[0]).toHaveProperty('bloodPressureUnits');
    expect((await rawOmron(clientsB.Sys_Admin)).statusCode).toBe(404);
  });

  it('a participant without the brand linked answers the not-authorised error', async () => {
    const trial = await createTrial(db(), clientsA.Admin);
    const other = (
      await addParticipant(clientsA.Admin, {
        trialId: trial.id,
        email: `unlinked-${process.pid}@study.example.org`,
      })
    ).participantId;
    const response = await clientsA.Admin.post(`/api/getOmronParticipantData/${other}`, {
      queryStr: 'weight',
      since: day(-2),
      sortOrder: 'asc',
      limit: 10,
    });
    expect(response.statusCode).toBe(409);
  });
});
