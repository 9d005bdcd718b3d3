import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { syncRuns, syncStates } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createTestDatabase } from '../../test/test-database';
import { SYNC_SOURCES, type SyncSource } from './sources';
import { dexcomSource } from '../../providers/dexcom/dexcom.source';
import { buildSyncService, type SyncSettings } from './sync.composition';
import { recoverAbandonedRuns } from './sync.jobs';
import { SYNC_LEASE_LOST, SYNC_WORKER_STOPPED, createSyncRunsRepository } from './sync.repository';
import { SYNC_LEASE_MS } from './sync.service';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;

/**
 * The connection's lease is short (SYNC_LEASE_MS) and renewed while a run works — at each
 * window it stores and in the background — so a dead worker's run is recovered about a
 * minute after its last renewal, a live long run is never taken for dead, and a run that
 * lost its lease writes nothing more (decision 0121). The lease's clock is injected (a manual
 * clock the test moves, as the recovery's `now`); the background renewal's interval is
 * test-settable.
 */
describe(`sync lease renewal (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  const connection = async (account: string, daysBack: number) => {
    const fixture = await createParticipants(database.db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(database.db, participantId, new Date(sims.clock.nowMs() - daysBack * DAY));
    const connectionId = await linkForSync(database.db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Dexcom',
      account,
      metrics: ['egv'],
    });
    return { participantId, connectionId, teamId: fixture.teamId };
  };
  /** The Dexcom source with `hook` run after each window is fetched (while the run holds its lease). */
  const withHook = (hook: () => Promise<void>): SyncSource => ({
    ...dexcomSource,
    streams: dexcomSource.streams.map((stream) => ({
      ...stream,
      async fetch(ctx, window, wanted) {
        const rows = await stream.fetch(ctx, window, wanted);
        await hook();
        return rows;
      },
    })),
  });
  const service = (settings: Partial<SyncSettings>) =>
    buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
      ...settings,
    });
  const sent: object[] = [];
  const sender = {
    send: async (_name: string, data: object) => (sent.push(data), `job-${sent.length}`),
  };
  const runsOf = (connectionId: number) =>
    database.db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.participantDeviceId, connectionId))
      .orderBy(syncRuns.id);
  const leaseOf = async (connectionId: number) =>
    (
      await database.db
        .select()
        .from(syncStates)
        .where(eq(syncStates.participantDeviceId, connectionId))
    )[0];

  it('a live run that stores a window every 40 s keeps its lease far past one lease length; the recovery leaves it alone', async () => {
    const leaseClock = createManualClock(new Date('2030-01-01T00:00:00Z'));
    const c = await connection('SandboxUser1', 130);
    let recoveries = 0;
    // Five 30-day windows, each 40 s long by the lease clock: 200 s in all, past the old lease (185 s).
    const slow = withHook(async () => {
      leaseClock.advance(40_000);
      const recovered = await recoverAbandonedRuns(database, sender, leaseClock.now());
      recoveries += recovered.closed;
    });
    const result = await service({
      leaseClock,
      leaseRenewMs: 3_600_000,
      sources: { ...SYNC_SOURCES, dexcom: slow },
    }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'live-run',
    });
    expect(result.outcome).toBe('succeeded');
    expect(recoveries).toBe(0);
    expect(leaseClock.now().getTime() - new Date('2030-01-01T00:00:00Z').getTime()).toBeGreaterThan(
      3 * SYNC_LEASE_MS,
    );
    expect((await runsOf(c.connectionId)).map((run) => [run.outcome, run.errorType])).toEqual([
      ['succeeded', null],
    ]);
  });

  it('a run stuck in one slow call keeps its lease by the background renewal', async () => {
    const leaseClock = createManualClock(new Date('2030-02-01T00:00:00Z'));
    const c = await connection('SandboxUser2', 10);
    const closed: number[] = [];
    // One window whose call outlasts the lease three times over; the renewal beats every 20 ms.
    const slowCall = withHook(async () => {
      for (let step = 0; step < 4; step++) {
        leaseClock.advance(45_000);
        // Wait for a renewal after the clock moved (the lease reaches a full length past now again).
        const renewedBy = leaseClock.now().getTime() + SYNC_LEASE_MS;
        await expect
          // The project's poll budget against hanging (decision 0274): under a loaded CI
          // machine a renewal once took longer than 10 s to land.
          .poll(async () => (await leaseOf(c.connectionId))?.leaseUntil?.getTime() ?? 0, {
            interval: 20,
          })
          .toBeGreaterThanOrEqual(renewedBy);
        closed.push((await recoverAbandonedRuns(database, sender, leaseClock.now())).closed);
      }
    });
    const result = await service({
      leaseClock,
      leaseRenewMs: 20,
      sources: { ...SYNC_SOURCES, dexcom: slowCall },
    }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'slow-run',
    });
    expect(closed).toEqual([0, 0, 0, 0]);
    expect(result.outcome).toBe('succeeded');
  });

  it('a run whose heartbeat stopped is recovered once the short lease ran out; when it wakes it writes nothing', async () => {
    const leaseClock = createManualClock(new Date('2030-03-01T00:00:00Z'));
    const c = await connection('SandboxUser3', 40);
    let reached!: () => void;
    const atFirstWindow = new Promise<void>((resolve) => (reached = resolve));
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    // The dead worker: it stops after its first fetch and never renews (no background renewal either).
    const frozen = withHook(async () => {
      reached();
      await woken;
    });
    const deadRun = service({
      leaseClock,
      leaseRenewMs: 3_600_000,
      sources: { ...SYNC_SOURCES, dexcom: frozen },
    }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'dead-worker-job',
    });
    await atFirstWindow;
    const [dead] = await runsOf(c.connectionId);
    expect(dead).toMatchObject({
      outcome: 'running',
      jobId: expect.stringMatching(/^dead-worker-job#/),
    });

    // Within its lease it is still taken for alive…
    leaseClock.advance(SYNC_LEASE_MS - 1_000);
    sent.length = 0;
    expect(await recoverAbandonedRuns(database, sender, leaseClock.now())).toEqual({
      closed: 0,
      queued: 0,
    });
    // …and recovered just after it: closed as failed with its reason, its connection queued again.
    leaseClock.advance(2_000);
    expect(await recoverAbandonedRuns(database, sender, leaseClock.now())).toEqual({
      closed: 1,
      queued: 1,
    });
    expect(sent).toEqual([{ connectionId: c.connectionId, kind: 'backfill', force: true }]);
    expect((await runsOf(c.connectionId))[0]).toMatchObject({
      outcome: 'failed',
      errorType: SYNC_WORKER_STOPPED,
    });

    // The run that takes over syncs the connection.
    const taker = await service({ leaseClock }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'taker-job',
      force: true,
    });
    expect(taker.outcome).toBe('succeeded');
    const readingsBefore = await database.db.execute<{ n: number; by_dead: number }>(
      sql`select count(*)::int as n, count(*) filter (where sync_run_id = ${dead!.id})::int as by_dead from stored_readings where participant_id = ${c.participantId}`,
    );
    expect(Number(readingsBefore.rows[0]!.n)).toBeGreaterThan(0);

    // The dead run wakes (a worker cut off that comes back): its window is not stored, its
    // run row keeps the recovery's verdict, the taker's run and the lease are untouched.
    const takerLease = await leaseOf(c.connectionId);
    wake();
    const late = await deadRun;
    expect(late).toMatchObject({
      outcome: 'busy',
      errorType: SYNC_LEASE_LOST,
      inserted: 0,
      updated: 0,
    });
    const readingsAfter = await database.db.execute<{ n: number; by_dead: number }>(
      sql`select count(*)::int as n, count(*) filter (where sync_run_id = ${dead!.id})::int as by_dead from stored_readings where participant_id = ${c.participantId}`,
    );
    expect(readingsAfter.rows[0]).toEqual(readingsBefore.rows[0]);
    expect(Number(readingsAfter.rows[0]!.by_dead)).toBe(0);
    const runs = await runsOf(c.connectionId);
    expect(runs.map((run) => [run.jobId?.split('#')[0], run.outcome, run.errorType])).toEqual([
      ['dead-worker-job', 'failed', SYNC_WORKER_STOPPED],
      ['taker-job', 'succeeded', null],
    ]);
    expect(runs[0]!.rowsInserted).toBe(0);
    expect(await leaseOf(c.connectionId)).toEqual(takerLease);
  });

  it('a run that finds its lease run out while it stalled closes its own run as lease_lost and asks for a follow-up', async () => {
    const leaseClock = createManualClock(new Date('2030-04-01T00:00:00Z'));
    const c = await connection('SandboxUser4', 40);
    // Stalled past its lease (no renewal meanwhile) with nobody taking over yet.
    const stall = withHook(async () => leaseClock.advance(SYNC_LEASE_MS + 1_000));
    const result = await service({
      leaseClock,
      leaseRenewMs: 3_600_000,
      sources: { ...SYNC_SOURCES, dexcom: stall },
    }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'stalled-job',
    });
    expect(result).toMatchObject({
      outcome: 'busy',
      errorType: SYNC_LEASE_LOST,
      continueStreams: ['egvs'],
      inserted: 0,
    });
    expect(result.continueAt).toBeInstanceOf(Date);
    expect(
      (await runsOf(c.connectionId)).map((run) => [run.outcome, run.errorType, run.rowsInserted]),
    ).toEqual([['failed', SYNC_LEASE_LOST, 0]]);
    const [count] = (
      await database.db.execute<{ n: number }>(
        sql`select count(*)::int as n from stored_readings where participant_id = ${c.participantId}`,
      )
    ).rows;
    expect(Number(count!.n)).toBe(0);
  });

  it('a renewal that lands after a later one does not move the lease back', async () => {
    const c = await connection('SandboxUser6', 2);
    const start = new Date('2030-06-01T00:00:00Z');
    const held = { leaseOwner: 'job-9', leaseUntil: new Date(start.getTime() + SYNC_LEASE_MS) };
    await database.db
      .insert(syncStates)
      .values({ participantDeviceId: c.connectionId, teamId: c.teamId, ...held })
      .onConflictDoUpdate({ target: syncStates.participantDeviceId, set: held });
    const runs = createSyncRunsRepository(database.db);
    const later = new Date(start.getTime() + 30_000 + SYNC_LEASE_MS);
    const earlier = new Date(start.getTime() + 15_000 + SYNC_LEASE_MS);
    const at = new Date(start.getTime() + 30_000);
    expect(await runs.renewLease(database.db, c.connectionId, 'job-9', at, later)).toBe(true);
    // The renewal begun 15 s earlier, landing now: still held, and the end stays.
    expect(await runs.renewLease(database.db, c.connectionId, 'job-9', at, earlier)).toBe(true);
    expect((await leaseOf(c.connectionId))!.leaseUntil!.getTime()).toBe(later.getTime());
    // Another owner's renewal is no renewal.
    expect(await runs.renewLease(database.db, c.connectionId, 'job-1', at, later)).toBe(false);
  });

  it('an attempt hung past the time pg-boss allows it stops renewing: a retry of the same job waits, the recovery closes the hung run, the retry syncs', async () => {
    const leaseClock = createManualClock(new Date('2030-05-01T00:00:00Z'));
    const c = await connection('SandboxUser5', 10);
    let reached!: () => void;
    const atFirstWindow = new Promise<void>((resolve) => (reached = resolve));
    let wake!: () => void;
    const woken = new Promise<void>((resolve) => (wake = resolve));
    // A call that never returns (until the test lets it): the process is alive, its timers run.
    const hung = withHook(async () => {
      reached();
      await woken;
    });
    // pg-boss's attempt time runs on its own clock here: the renewal ends when the test
    // moves it, however slow the machine (a real 500 ms window ran out under load).
    const attemptClock = createManualClock(new Date('2030-05-01T00:00:00Z'));
    const renewForMs = 500;
    const firstAttempt = service({
      leaseClock,
      attemptClock,
      leaseRenewMs: 20,
      renewForMs,
      sources: { ...SYNC_SOURCES, dexcom: hung },
    }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'job-7',
    });
    await atFirstWindow;

    // pg-boss retries the job under the same id while the first attempt still lives: the
    // retry is another attempt, so it finds the lease held and waits instead of sharing it.
    const retry = await service({ leaseClock }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'job-7',
      force: true,
    });
    expect(retry.outcome).toBe('busy');

    // Meanwhile the background renewal keeps the lease a full length past now.
    leaseClock.advance(30_000);
    const renewedBy = leaseClock.now().getTime() + SYNC_LEASE_MS;
    await expect
      .poll(async () => (await leaseOf(c.connectionId))?.leaseUntil?.getTime() ?? 0, {
        interval: 20,
      })
      .toBeGreaterThanOrEqual(renewedBy);

    // Past its attempt time it renews no more (a renewal beats every 20 ms: 300 ms is 15 of
    // them). A renewal still in flight writes the same end: the lease clock has not moved.
    attemptClock.advance(renewForMs + 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const heldUntil = (await leaseOf(c.connectionId))!.leaseUntil!.getTime();
    expect(heldUntil).toBe(renewedBy);
    leaseClock.advance(SYNC_LEASE_MS / 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await leaseOf(c.connectionId))!.leaseUntil!.getTime()).toBe(heldUntil);

    // The lease runs out; the recovery closes the hung run and queues its connection.
    leaseClock.advance(SYNC_LEASE_MS);
    sent.length = 0;
    expect(await recoverAbandonedRuns(database, sender, leaseClock.now())).toEqual({
      closed: 1,
      queued: 1,
    });
    const taker = await service({ leaseClock }).syncConnection(c.connectionId, {
      kind: 'backfill',
      owner: 'job-7',
      force: true,
    });
    expect(taker.outcome).toBe('succeeded');

    // The hung attempt wakes: it stores nothing and leaves the verdicts as they are.
    wake();
    expect(await firstAttempt).toMatchObject({
      outcome: 'busy',
      errorType: SYNC_LEASE_LOST,
      inserted: 0,
    });
    expect(
      (await runsOf(c.connectionId)).map((run) => [
        run.jobId?.split('#')[0],
        run.outcome,
        run.errorType,
      ]),
    ).toEqual([
      ['job-7', 'failed', SYNC_WORKER_STOPPED],
      ['job-7', 'succeeded', null],
    ]);
  });

  it('the database going away mid-run: the run is closed as failed and its unfinished streams go on within a minute, ending with what an undisturbed run stores', async () => {
    const faulted = await connection('SandboxUser6', 40);
    const undisturbed = await connection('SandboxUser6', 40);
    // What node-postgres throws when the server restarts under a query (SQLSTATE 57P01).
    const restart = () =>
      Object.assign(new Error('terminating connection due to administrator command'), {
        code: '57P01',
      });
    let windows = 0;
    const dropsOnce = withHook(async () => {
      windows += 1;
      if (windows === 2) throw restart();
    });
    const cut = await service({ sources: { ...SYNC_SOURCES, dexcom: dropsOnce } }).syncConnection(
      faulted.connectionId,
      { kind: 'backfill', owner: 'db-fault' },
    );
    expect(cut).toMatchObject({ outcome: 'failed', errorType: 'processing_error' });
    // Only the egv stream is planned (the one enabled metric), and it did not finish.
    expect(cut.continueStreams).toEqual(['egvs']);
    const waited = cut.continueAt!.getTime() - sims.clock.nowMs();
    expect(waited).toBeGreaterThan(0);
    expect(waited).toBeLessThanOrEqual(60_000);

    // A fault of the run itself is not retried on its own: the next scheduler tick decides.
    const broken = await connection('SandboxUser7', 40);
    const bug = await service({
      sources: {
        ...SYNC_SOURCES,
        dexcom: withHook(async () => {
          throw new TypeError('a bug in a converter');
        }),
      },
    }).syncConnection(broken.connectionId, { kind: 'backfill', owner: 'bug' });
    expect(bug).toMatchObject({ outcome: 'failed', errorType: 'processing_error' });
    expect(bug.continueAt).toBeUndefined();

    // The follow-up the job asks for, and an undisturbed run of the same account: the same rows.
    const followUp = await service({}).syncConnection(faulted.connectionId, {
      kind: 'backfill',
      owner: 'db-fault-follow-up',
      streams: cut.continueStreams!,
      force: true,
    });
    expect(followUp.outcome).toBe('succeeded');
    expect(
      (await service({}).syncConnection(undisturbed.connectionId, { kind: 'backfill', owner: 'x' }))
        .outcome,
    ).toBe('succeeded');
    const readingsOf = async (participantId: number) =>
      (
        await database.db.execute<{ n: number; digest: string }>(
          sql`SELECT count(*)::int AS n, md5(string_agg(recorded_at::text || '|' || value::text, ',' ORDER BY recorded_at)) AS digest
                FROM stored_readings WHERE participant_id = ${participantId} AND metric_key = 'egv'`,
        )
      ).rows[0]!;
    const expected = await readingsOf(undisturbed.participantId);
    expect(Number(expected.n)).toBeGreaterThan(1000);
    expect(await readingsOf(faulted.participantId)).toEqual(expected);
    expect((await runsOf(faulted.connectionId)).map((run) => [run.outcome, run.errorType])).toEqual(
      [
        ['failed', 'processing_error'],
        ['succeeded', null],
      ],
    );
  });
});
