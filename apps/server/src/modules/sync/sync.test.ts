import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import {
  deviceReadingChunks,
  deviceReadings,
  participantDevices,
  storedReadings,
  syncCallBudgets,
  syncRuns,
  teamDeviceDataStorageSettings,
} from '../../db/schema';
import { decryptSecret } from '../../lib/crypto';
import { createTestDatabase } from '../../test/test-database';
import { buildSyncService } from './sync.composition';
import { SYNC_SOURCES } from './sources';
import { googleHealthSource } from '../../providers/google-health/google-health.source';
import type { SyncService } from './sync.service';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

describe(`device data sync against the simulators over HTTP (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;
  let service: SyncService;
  /** A participant in a team of its own: the metric settings of one test do not reach another. */
  const fresh = async () => {
    const fixture = await createParticipants(database.db, 1);
    return { teamId: fixture.teamId, participantId: fixture.participantIds[0]! };
  };
  const db = () => database.db;
  const run = (connectionId: number, kind: 'backfill' | 'incremental' = 'backfill') =>
    service.syncConnection(connectionId, { kind, owner: randomUUID(), force: true });
  const tokenOf = async (connectionId: number) => {
    const [row] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    return decryptSecret(row!.accessTokenEncrypted!, sims.encryptionKey);
  };
  const stored = (participantId: number, metricKey: string) =>
    db()
      .select()
      .from(storedReadings)
      .where(
        and(
          eq(storedReadings.participantId, participantId),
          eq(storedReadings.metricKey, metricKey),
        ),
      )
      .orderBy(storedReadings.recordedAt);

  /** The Google Health simulator's own call counters, read over its control API. */
  const simulatorCalls = async (account: string) => {
    const response = await fetch(`${sims.googleHealth.baseUrl}/__control/calls?account=${account}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      limitPerMinute: number;
      accounts: Array<{
        total: number;
        overQuota: number;
        faults: Record<string, number>;
        minutes: Array<{ start: string; calls: number }>;
        busiestMinute: number;
      }>;
      calls: Array<{ at: string; outcome: string }>;
    };
    return { ...body, account: body.accounts[0]! };
  };
  const clearSimulatorCalls = async () =>
    expect(
      (await fetch(`${sims.googleHealth.baseUrl}/__control/calls`, { method: 'DELETE' })).status,
    ).toBe(204);

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
    service = buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  // Tens of thousands of heart-rate samples: slow on a shared machine, hence the longer time limit.
  it('backfills a Google Health connection from enrolment: exactly what the simulator holds, only metrics enabled in both layers; a second sync adds nothing', async () => {
    const { teamId, participantId } = await fresh();
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 3 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ava-thompson',
      metrics: ['steps', 'heart_rate', 'sleep_duration', 'weight', 'resting_heart_rate'],
      adminOnlyMetrics: ['floors'],
      teamOnlyMetrics: ['distance'],
    });
    const first = await run(connectionId);
    expect(first.outcome).toBe('succeeded');
    expect(first.inserted).toBeGreaterThan(10_000);

    // What the simulator holds for the same participant and range, read straight from its API.
    const token = await tokenOf(connectionId);
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${sims.googleHealth.baseUrl}/v4/users/me${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      });
      expect(response.status).toBe(200);
      return (await response.json()) as Record<string, unknown>;
    };
    const listAll = async (type: string, filter: string, pageSize: number) => {
      const points: Record<string, Record<string, unknown>>[] = [];
      let pageToken = '';
      do {
        const page = await api(
          `/dataTypes/${type}/dataPoints?${new URLSearchParams({ filter, pageSize: String(pageSize), ...(pageToken && { pageToken }) })}`,
        );
        points.push(...((page.dataPoints as never[]) ?? []));
        pageToken = (page.nextPageToken as string) ?? '';
      } while (pageToken);
      return points;
    };
    const heart = await listAll(
      'heart-rate',
      `heart_rate.sample_time.physical_time >= "${enrolled.toISOString()}" AND heart_rate.sample_time.physical_time < "${now.toISOString()}"`,
      10_000,
    );
    const heartRows = await stored(participantId, 'heart_rate');
    expect(heartRows.length).toBe(heart.length);
    expect(heartRows.map((row) => [row.recordedAt.toISOString(), row.value])).toEqual(
      heart
        .map((point) => [
          new Date(
            (point.heartRate!.sampleTime as { physicalTime: string }).physicalTime,
          ).toISOString(),
          Number(point.heartRate!.beatsPerMinute),
        ])
        .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
    );
    const firstDay = new Date(Math.floor(enrolled.getTime() / DAY) * DAY);
    const civil = (d: Date) => ({
      year: d.getUTCFullYear(),
      month: d.getUTCMonth() + 1,
      day: d.getUTCDate(),
    });
    const rollup = await api('/dataTypes/steps/dataPoints:dailyRollUp', {
      method: 'POST',
      body: JSON.stringify({
        range: {
          start: { date: civil(firstDay) },
          end: { date: civil(new Date(Math.ceil(now.getTime() / DAY) * DAY)) },
        },
        windowSizeDays: 1,
      }),
    });
    const expectedSteps = (
      (rollup.rollupDataPoints as Array<{
        civilStartTime: { date: { year: number; month: number; day: number } };
        steps: { countSum?: string };
      }>) ?? []
    )
      .map((point) => [
        new Date(
          Date.UTC(
            point.civilStartTime.date.year,
            point.civilStartTime.date.month - 1,
            point.civilStartTime.date.day,
          ),
        ).toISOString(),
        Number(point.steps.countSum ?? 0),
      ])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(
      (await stored(participantId, 'steps')).map((row) => [
        row.recordedAt.toISOString(),
        row.value,
      ]),
    ).toEqual(expectedSteps);
    expect(expectedSteps.length).toBeGreaterThanOrEqual(3);
    const sleep = await listAll(
      'sleep',
      `sleep.interval.end_time >= "${firstDay.toISOString()}" AND sleep.interval.end_time < "${now.toISOString()}"`,
      25,
    );
    expect((await stored(participantId, 'sleep_duration')).map((row) => row.value)).toEqual(
      sleep
        .map((point) => point.sleep!)
        .sort((a, b) =>
          String((a.interval as { startTime: string }).startTime).localeCompare(
            String((b.interval as { startTime: string }).startTime),
          ),
        )
        .map((s) => Number((s.summary as { minutesAsleep: string }).minutesAsleep)),
    );
    const weights = await listAll(
      'weight',
      `weight.sample_time.physical_time >= "${firstDay.toISOString()}" AND weight.sample_time.physical_time < "${now.toISOString()}"`,
      10_000,
    );
    expect((await stored(participantId, 'weight')).map((row) => row.value).sort()).toEqual(
      weights.map((point) => Number(point.weight!.weightGrams) / 1000).sort(),
    );
    // A metric enabled in one layer only is never stored.
    expect(await stored(participantId, 'floors')).toEqual([]);
    expect(await stored(participantId, 'distance')).toEqual([]);
    // Provenance: upstream, data source and the run.
    expect(heartRows[0]).toMatchObject({
      upstream: 'google-health',
      brand: 'Fitbit',
      syncRunId: first.runId,
    });

    const second = await run(connectionId, 'incremental');
    expect(second).toMatchObject({ outcome: 'succeeded', inserted: 0, updated: 0 });
  });

  it("keeps each Google sleep session with its sleep_stages reading (the Fitbit data call rebuilds the night's log from it), without its bookkeeping times", async () => {
    const { teamId, participantId } = await fresh();
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 4 * DAY);
    await enrolledOn(db(), participantId, enrolled);
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ava-thompson',
      metrics: ['sleep_stages'],
    });
    expect((await run(connectionId)).outcome).toBe('succeeded');

    type Body = Record<string, unknown>;
    const firstDay = new Date(Math.floor(enrolled.getTime() / DAY) * DAY);
    const filter = `sleep.interval.end_time >= "${firstDay.toISOString()}" AND sleep.interval.end_time < "${now.toISOString()}"`;
    const response = await fetch(
      `${sims.googleHealth.baseUrl}/v4/users/me/dataTypes/sleep/dataPoints?${new URLSearchParams({ filter, pageSize: '25' })}`,
      {
        headers: { authorization: `Bearer ${await tokenOf(connectionId)}` },
      },
    );
    expect(response.status).toBe(200);
    const sessions = ((await response.json()) as { dataPoints: Array<{ sleep: Body }> }).dataPoints
      .map((point) => point.sleep)
      .sort((a, b) =>
        String((a.interval as Body).startTime).localeCompare(
          String((b.interval as Body).startTime),
        ),
      );
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(sessions.some((sleep) => Array.isArray(sleep.shortAwakenings))).toBe(true);

    const segments = (list: Body[]) =>
      list.map(({ createTime: _c, updateTime: _u, ...segment }) => segment);
    const expected = sessions.map(
      ({ createTime: _c, updateTime: _u, outOfBedSegments: _o, ...sleep }) => {
        const minutes: Record<string, number> = {};
        for (const entry of (
          sleep.summary as { stagesSummary: Array<{ type: string; minutes: string }> }
        ).stagesSummary)
          minutes[entry.type.toLowerCase()] =
            (minutes[entry.type.toLowerCase()] ?? 0) + Number(entry.minutes);
        return {
          type: sleep.type,
          minutes,
          session: {
            ...sleep,
            stages: segments(sleep.stages as Body[]),
            ...(Array.isArray(sleep.shortAwakenings) && {
              shortAwakenings: segments(sleep.shortAwakenings as Body[]),
            }),
          },
        };
      },
    );
    const rows = await stored(participantId, 'sleep_stages');
    expect(rows.map((row) => row.valueJson)).toEqual(expected);
    expect(JSON.stringify(rows.map((row) => row.valueJson))).not.toContain('createTime');
  });

  it('backfills Omron blood pressure and Dexcom glucose exactly; a second sync adds nothing', async () => {
    const { teamId, participantId: omronParticipant } = await fresh();
    const { teamId: dexcomTeam, participantId: dexcomParticipant } = await fresh();
    const now = sims.clock.now();
    const enrolled = new Date(now.getTime() - 45 * DAY);
    await enrolledOn(db(), omronParticipant, enrolled);
    await enrolledOn(db(), dexcomParticipant, enrolled);
    const omronId = await linkForSync(db(), sims, {
      teamId,
      participantId: omronParticipant,
      brand: 'Omron',
      account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f01',
      metrics: ['systolic', 'diastolic', 'pulse'],
    });
    const dexcomId = await linkForSync(db(), sims, {
      teamId: dexcomTeam,
      participantId: dexcomParticipant,
      brand: 'Dexcom',
      account: 'SandboxUser1',
      metrics: ['egv'],
    });
    expect((await run(omronId)).outcome).toBe('succeeded');
    const dexcomRun = await run(dexcomId);
    expect(dexcomRun.outcome).toBe('succeeded');
    // 45 days: one dataRange probe and two 30-day egvs windows.
    expect(dexcomRun.providerCalls).toBe(3);

    const omronToken = await tokenOf(omronId);
    const since = new Date(enrolled.getTime() - DAY).toISOString().slice(0, 10);
    const answer = (await (
      await fetch(`${sims.omron.baseUrl}/api/measurement`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${omronToken}`,
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: new URLSearchParams({ type: 'bloodpressure', since, limit: '5000' }),
      })
    ).json()) as {
      result: { bloodPressure: Array<{ dateTime: string; systolic: number; diastolic: number }> };
    };
    const expected = answer.result.bloodPressure
      .filter((item) => new Date(item.dateTime) >= enrolled && new Date(item.dateTime) < now)
      .map((item) => [new Date(item.dateTime).toISOString(), item.systolic])
      .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    expect(expected.length).toBeGreaterThan(10);
    expect(
      (await stored(omronParticipant, 'systolic')).map((row) => [
        row.recordedAt.toISOString(),
        row.value,
      ]),
    ).toEqual(expected);
    expect((await stored(omronParticipant, 'diastolic')).length).toBe(expected.length);

    const dexcomToken = await tokenOf(dexcomId);
    const egvs: Array<[string, number]> = [];
    for (let from = enrolled.getTime(); from < now.getTime(); from += 30 * DAY) {
      const to = Math.min(now.getTime(), from + 30 * DAY);
      const query = new URLSearchParams({
        startDate: new Date(from).toISOString().slice(0, 19),
        endDate: new Date(to).toISOString().slice(0, 19),
      });
      const page = (await (
        await fetch(`${sims.dexcom.baseUrl}/v3/users/self/egvs?${query}`, {
          headers: { authorization: `Bearer ${dexcomToken}` },
        })
      ).json()) as { records: Array<{ systemTime: string; value: number | null }> };
      for (const record of page.records)
        if (record.value !== null)
          egvs.push([new Date(`${record.systemTime}Z`).toISOString(), record.value]);
    }
    egvs.sort((a, b) => a[0].localeCompare(b[0]));
    expect(egvs.length).toBeGreaterThan(1000);
    expect(
      (await stored(dexcomParticipant, 'egv')).map((row) => [
        row.recordedAt.toISOString(),
        row.value,
      ]),
    ).toEqual(egvs);

    expect(await run(omronId, 'incremental')).toMatchObject({
      outcome: 'succeeded',
      inserted: 0,
      updated: 0,
    });
    expect(await run(dexcomId, 'incremental')).toMatchObject({
      outcome: 'succeeded',
      inserted: 0,
      updated: 0,
    });
  });

  let benParticipant = 0;
  it('a forced 429 mid-backfill backs off and resumes without duplicates; never more calls than the budget', async () => {
    const { teamId, participantId } = await fresh();
    benParticipant = participantId;
    const now = sims.clock.now();
    await enrolledOn(db(), participantId, new Date(now.getTime() - 200 * DAY));
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ben-okafor',
      metrics: ['steps', 'resting_heart_rate', 'weight', 'sleep_duration'],
    });
    await clearSimulatorCalls();
    await sims.googleHealth.control.injectFault({
      kind: 'rate-limit',
      times: 1,
      pathIncludes: 'weight',
    });
    const first = await run(connectionId);
    expect(first.outcome).toBe('backed_off');
    expect(first.errorType).toBe('rate_limit');
    expect(first.continueAt!.getTime()).toBeGreaterThan(now.getTime());
    // The simulator saw exactly the calls the run counted, the forced 429 among them.
    const afterFirst = await simulatorCalls('ben-okafor');
    expect(afterFirst.account.total).toBe(first.providerCalls);
    expect(afterFirst.account.faults).toEqual({ 'rate-limit': 1 });
    // Backing off: a run before the time makes no call (the simulator's count does not move).
    expect(await run(connectionId)).toMatchObject({ outcome: 'backed_off', providerCalls: 0 });
    expect((await simulatorCalls('ben-okafor')).account.total).toBe(first.providerCalls);
    sims.clock.advance(2 * 60_000);
    const resumed = await run(connectionId);
    expect(resumed.outcome).toBe('succeeded');
    // Read from the simulator's counters: every call accounted for, none refused for the
    // quota, no minute over Google's 300 calls per user, none before the back-off ended.
    const counters = await simulatorCalls('ben-okafor');
    expect(counters.limitPerMinute).toBe(300);
    expect(counters.account.total).toBe(first.providerCalls + resumed.providerCalls);
    expect(counters.account.overQuota).toBe(0);
    expect(counters.account.busiestMinute).toBeLessThanOrEqual(300);
    const refusedAt = counters.calls.findIndex((call) => call.outcome === 'fault:rate-limit');
    expect(refusedAt).toBeGreaterThanOrEqual(0);
    const afterRefusal = counters.calls.slice(refusedAt + 1);
    expect(afterRefusal.length).toBe(resumed.providerCalls);
    for (const call of afterRefusal)
      expect(new Date(call.at).getTime()).toBeGreaterThanOrEqual(first.continueAt!.getTime());
    const [dupes] = (
      await db().execute<{ n: number }>(
        sql`select count(*)::int as n from (select metric_key, recorded_at from stored_readings where participant_id = ${participantId} group by 1, 2 having count(*) > 1) d`,
      )
    ).rows;
    expect(Number(dupes!.n)).toBe(0);
    expect((await stored(participantId, 'steps')).length).toBeGreaterThan(150);
  });

  it('never spends more calls than the shared budget allows: two workers on one budget, then a back-off until the window ends', async () => {
    const participantId = benParticipant;
    const [connection] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.participantId, participantId));
    const connectionId = connection!.id;
    await db().delete(deviceReadings).where(eq(deviceReadings.participantId, participantId));
    await db()
      .delete(deviceReadingChunks)
      .where(eq(deviceReadingChunks.participantId, participantId));
    await db().execute(sql`delete from sync_cursors where participant_device_id = ${connectionId}`);
    sims.clock.advance(60_000);
    await clearSimulatorCalls();
    // A budget of 12 calls a minute for this connection (a window's pages — 200 nights of sleep
    // at 25 a page — must fit in one), used by two services (two worker processes).
    const LIMIT = 12;
    const tightSources = {
      ...SYNC_SOURCES,
      'google-health': {
        ...googleHealthSource,
        budgets: () => [{ scope: `test:${connectionId}`, limit: LIMIT, windowSeconds: 60 }],
      },
    };
    const worker = () =>
      buildSyncService(database, {
        providers: sims.providers,
        encryptionKey: sims.encryptionKey,
        clock: sims.clock,
        sources: tightSources,
      });
    const [a, b] = [worker(), worker()];
    const first = await a.syncConnection(connectionId, {
      kind: 'backfill',
      owner: randomUUID(),
      force: true,
    });
    const second = await b.syncConnection(connectionId, {
      kind: 'backfill',
      owner: randomUUID(),
      force: true,
    });
    expect(first).toMatchObject({
      outcome: 'backed_off',
      errorType: 'rate_limit',
      providerCalls: LIMIT,
    });
    expect(second).toMatchObject({ outcome: 'backed_off', providerCalls: 0 });
    const [budget] = await db()
      .select()
      .from(syncCallBudgets)
      .where(eq(syncCallBudgets.scope, `test:${connectionId}`));
    expect(budget!.callsUsed).toBe(LIMIT);
    expect(first.continueAt!.getTime() % 60_000).toBe(0);
    // In the next minute the backfill goes on from its checkpoint, at most LIMIT calls a minute.
    let runs = 0;
    let result = first;
    while (result.outcome !== 'succeeded' && runs++ < 40) {
      sims.clock.set(result.continueAt ?? new Date(sims.clock.nowMs() + 60_000));
      result = await b.syncConnection(connectionId, { kind: 'backfill', owner: randomUUID() });
      expect(result.providerCalls).toBeLessThanOrEqual(LIMIT);
    }
    expect(result.outcome).toBe('succeeded');
    expect((await stored(participantId, 'steps')).length).toBeGreaterThan(150);
    // The provider's side: no clock minute received more than the budget, none was refused.
    const counters = await simulatorCalls('ben-okafor');
    expect(counters.account.overQuota).toBe(0);
    expect(counters.account.minutes.length).toBeGreaterThan(1);
    expect(counters.account.busiestMinute).toBe(LIMIT);
  });

  it('an expired token mid-run is refreshed once and the run goes on; invalid_grant needs re-consent and keeps the readings', async () => {
    const { teamId, participantId } = await fresh();
    const now = sims.clock.now();
    await enrolledOn(db(), participantId, new Date(now.getTime() - 10 * DAY));
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Omron',
      account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f02',
      metrics: ['systolic'],
    });
    await sims.omron.control.expireAccessTokens({});
    // The single-flight refresh compares instants: let the (frozen) clock move past the link.
    sims.clock.advance(1000);
    const [before] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    const first = await run(connectionId);
    expect(first, JSON.stringify(first)).toMatchObject({ outcome: 'succeeded' });
    const [after] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    expect(after!.lastRefreshedAt).not.toEqual(before!.lastRefreshedAt);
    const kept = (await stored(participantId, 'systolic')).length;
    expect(kept).toBeGreaterThan(0);

    await sims.omron.control.expireAccessTokens({});
    await sims.omron.control.injectFault({ kind: 'invalid-grant', target: 'token', times: 1 });
    sims.clock.advance(1000);
    const dead = await run(connectionId, 'incremental');
    expect(dead.outcome).toBe('needs_reconsent');
    const [marked] = await db()
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    expect(marked!.needsReconsent).toBe(true);
    expect((await stored(participantId, 'systolic')).length).toBe(kept);
    // Sync stops: no run, no call.
    expect(await run(connectionId)).toMatchObject({ outcome: 'needs_reconsent', providerCalls: 0 });
  });

  it('unticking a metric in the team layer stops its collection at the next run', async () => {
    const { teamId, participantId } = await fresh();
    const now = sims.clock.now();
    await enrolledOn(db(), participantId, new Date(now.getTime() - 5 * DAY));
    const connectionId = await linkForSync(db(), sims, {
      teamId,
      participantId,
      brand: 'Dexcom',
      account: 'SandboxUser2',
      metrics: ['egv', 'egv_trend_rate'],
    });
    await run(connectionId);
    const trend = (await stored(participantId, 'egv_trend_rate')).length;
    expect(trend).toBeGreaterThan(0);
    await db()
      .update(teamDeviceDataStorageSettings)
      .set({ isEnabled: false })
      .where(
        and(
          eq(teamDeviceDataStorageSettings.teamId, teamId),
          eq(teamDeviceDataStorageSettings.metricKey, 'egv_trend_rate'),
        ),
      );
    sims.clock.advance(3 * 60 * 60_000);
    const next = await run(connectionId, 'incremental');
    expect(next.inserted).toBeGreaterThan(0);
    expect((await stored(participantId, 'egv_trend_rate')).length).toBe(trend);
    const [lastRun] = await db().select().from(syncRuns).where(eq(syncRuns.id, next.runId!));
    expect(lastRun!.metrics).toEqual(['egv']);
  });
});
