import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { syncRuns, syncStates } from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { createTestDatabase } from '../../test/test-database';
import {
  SYNC_CONNECTION_JOB,
  SYNC_RECOVER_JOB,
  createSyncJobs,
  recoverAbandonedRuns,
} from './sync.jobs';
import { testServices } from '../../test/test-services';
import { SYNC_WORKER_STOPPED } from './sync.repository';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };
const DAY = 86_400_000;

/**
 * A sync run whose worker process died (killed, crashed, its machine gone) used to stay
 * `running` forever, and its connection waited for pg-boss's expiry of the dead job. The
 * recovery (every minute, and at a worker's start) closes it as failed (`worker_stopped`) once
 * its lease is gone and has the connection synced again. The dead worker is simulated by what
 * it leaves behind: a `running` run row and a lease that ran out (or no lease at all).
 */
describe(`sync runs of stopped workers (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;
  let jobs: Jobs | undefined;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
  });
  afterAll(async () => {
    await jobs?.stop();
    await sims?.close();
    await database?.close();
  });

  const connection = async (account: string) => {
    const fixture = await createParticipants(database.db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(database.db, participantId, new Date(sims.clock.nowMs() - 3 * DAY));
    const connectionId = await linkForSync(database.db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Dexcom',
      account,
      metrics: ['egv'],
    });
    return { teamId: fixture.teamId, connectionId };
  };
  const runningRun = async (
    c: { teamId: number; connectionId: number },
    jobId: string,
    leaseUntil: Date | null,
    startedAt: Date,
  ) => {
    if (leaseUntil)
      await database.db.insert(syncStates).values({
        participantDeviceId: c.connectionId,
        teamId: c.teamId,
        leaseOwner: jobId,
        leaseUntil,
      });
    const [row] = await database.db
      .insert(syncRuns)
      .values({
        teamId: c.teamId,
        participantDeviceId: c.connectionId,
        upstream: 'dexcom',
        kind: 'backfill',
        jobId,
        metrics: ['egv'],
        startedAt,
      })
      .returning({ id: syncRuns.id });
    return row!.id;
  };
  const run = async (id: number) =>
    (await database.db.select().from(syncRuns).where(eq(syncRuns.id, id)))[0]!;

  it('closes runs without a live lease as failed and enqueues their connections; a live run is left alone', async () => {
    const now = new Date('2030-01-01T12:00:00Z');
    const dead = await connection('SandboxUser1');
    const neverLeased = await connection('SandboxUser2');
    const live = await connection('SandboxUser3');
    const deadRun = await runningRun(
      dead,
      'dead-job',
      new Date(now.getTime() - 1_000),
      new Date(now.getTime() - 200_000),
    );
    const neverLeasedRun = await runningRun(
      neverLeased,
      'gone-job',
      null,
      new Date(now.getTime() - 60_000),
    );
    const liveRun = await runningRun(
      live,
      'live-job',
      new Date(now.getTime() + 60_000),
      new Date(now.getTime() - 10_000),
    );

    const sent: Array<{ name: string; data: object; options: object }> = [];
    const sender = {
      send: async (name: string, data: object, options: object) => (
        sent.push({ name, data, options }),
        `job-${sent.length}`
      ),
    };
    expect(await recoverAbandonedRuns(database, sender, now)).toEqual({ closed: 2, queued: 2 });

    for (const id of [deadRun, neverLeasedRun])
      expect(await run(id)).toMatchObject({
        outcome: 'failed',
        errorType: SYNC_WORKER_STOPPED,
        finishedAt: now,
      });
    expect(await run(liveRun)).toMatchObject({
      outcome: 'running',
      finishedAt: null,
      errorType: null,
    });
    expect(
      sent
        .map((entry) => [entry.name, entry.data, entry.options])
        .sort((a, b) => String(a[2]).localeCompare(String(b[2]))),
    ).toEqual(
      expect.arrayContaining([
        [
          SYNC_CONNECTION_JOB,
          { connectionId: dead.connectionId, kind: 'backfill', force: true },
          { singletonKey: `connection:${dead.connectionId}` },
        ],
        [
          SYNC_CONNECTION_JOB,
          { connectionId: neverLeased.connectionId, kind: 'backfill', force: true },
          { singletonKey: `connection:${neverLeased.connectionId}` },
        ],
      ]),
    );
    expect(sent).toHaveLength(2);

    // A second pass finds nothing more to do.
    expect(await recoverAbandonedRuns(database, sender, now)).toEqual({ closed: 0, queued: 0 });
  });

  it("on real workers: the recovery job closes a dead worker's run and a new run syncs its connection", async () => {
    const dead = await connection('SandboxUser4');
    // Its lease ran out before the sync's (simulated, frozen) clock: the new run may take it.
    const leaseEnd = Math.min(Date.now(), sims.clock.nowMs()) - 1_000;
    const deadRun = await runningRun(
      dead,
      'killed-worker-job',
      new Date(leaseEnd),
      new Date(leaseEnd - 200_000),
    );
    jobs = await startJobs({
      database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: createSyncJobs(),
      services: testServices(database, {
        providers: sims.providers,
        encryptionKey: sims.encryptionKey,
        clock: sims.clock,
      }),
    });
    // The recovery's tick (cron every minute; the test sends it rather than wait).
    await jobs.boss.send(SYNC_RECOVER_JOB, {});
    await expect
      .poll(
        async () => {
          const runs = await database.db
            .select()
            .from(syncRuns)
            .where(eq(syncRuns.participantDeviceId, dead.connectionId));
          return runs
            .map((r) =>
              r.id === deadRun ? `dead:${r.outcome}:${r.errorType}` : `new:${r.outcome}`,
            )
            .sort();
        },
        { interval: 250 },
      )
      .toEqual([`dead:failed:${SYNC_WORKER_STOPPED}`, 'new:succeeded']);
  });
});
