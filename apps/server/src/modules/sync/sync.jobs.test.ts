import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { storedReadings, syncRuns } from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { createTestDatabase } from '../../test/test-database';
import { buildSyncService } from './sync.composition';
import { SYNC_SCHEDULE_JOB, createSyncJobs, enqueueSync } from './sync.jobs';
import { testServices } from '../../test/test-services';
import { SYNC_SOURCES, type SyncSource } from './sources';
import { dexcomSource } from '../../providers/dexcom/dexcom.source';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const DAY = 86_400_000;
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor(
  condition: () => Promise<boolean>,
  timeoutMs = 60_000,
  /** What to say when the time is up (the state that explains the wait). */
  explain?: () => Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) {
      throw new Error(
        `condition not met within ${timeoutMs} ms${explain ? `: ${await explain()}` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function linkedParticipant(
  database: Database,
  sims: SyncSimulators,
  account = 'SandboxUser1',
  daysBack = 100,
) {
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
  return { participantId, connectionId };
}

const egvsOf = async (database: Database, participantId: number) =>
  (
    await database.db.execute<{ at: string; value: number; json: string }>(
      sql`select to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') as at, value, value_json::text as json from stored_readings where participant_id = ${participantId} and metric_key = 'egv' order by recorded_at`,
    )
  ).rows.map((row) => `${row.at}=${row.value} ${row.json}`);

describe(`sync jobs on real pg-boss workers (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;
  let jobs: Jobs;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators();
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
  });
  afterAll(async () => {
    await jobs?.stop();
    await sims?.close();
    await database?.close();
  });

  it('the scheduler job queues each linked connection and a worker backfills it', async () => {
    const { participantId, connectionId } = await linkedParticipant(
      database,
      sims,
      'SandboxUser4',
      20,
    );
    await jobs.boss.send(SYNC_SCHEDULE_JOB, {});
    await waitFor(async () => {
      const runs = await database.db
        .select()
        .from(syncRuns)
        .where(eq(syncRuns.participantDeviceId, connectionId));
      return runs.some((run) => run.outcome === 'succeeded');
    });
    const [run] = await database.db
      .select()
      .from(syncRuns)
      .where(eq(syncRuns.participantDeviceId, connectionId));
    expect(run).toMatchObject({ kind: 'incremental', outcome: 'succeeded', upstream: 'dexcom' });
    const [count] = await database.db
      .select({ n: sql<number>`count(*)::int` })
      .from(storedReadings)
      .where(eq(storedReadings.participantId, participantId));
    expect(Number(count!.n)).toBeGreaterThan(1000);
    expect(Number(count!.n)).toBe(run!.rowsInserted);
  });
});

describe(`a run its time box stopped is followed up (${MODE})`, () => {
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

  it('the follow-up syncs the few minutes the time box left, though their cursor looks fresh', async () => {
    // Enrolled 30 days and 5 minutes ago: one full Dexcom window, then a 5-minute one. The
    // full window outlasts the 1-second time box, so the run stops before the short one,
    // with a cursor 5 minutes old — not due by the cadence, but the run is not finished.
    const slowLongWindows: SyncSource = {
      ...dexcomSource,
      streams: dexcomSource.streams.map((stream) =>
        stream.key !== 'egvs'
          ? stream
          : {
              ...stream,
              async fetch(ctx, window, wanted) {
                const rows = await stream.fetch(ctx, window, wanted);
                if (window.to.getTime() - window.from.getTime() > DAY)
                  await new Promise((resolve) => setTimeout(resolve, 1_200));
                return rows;
              },
            },
      ),
    };
    jobs = await startJobs({
      database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: createSyncJobs({ runSeconds: 1 }),
      services: testServices(database, {
        providers: sims.providers,
        encryptionKey: sims.encryptionKey,
        clock: sims.clock,
        sync: { runSeconds: 1, sources: { ...SYNC_SOURCES, dexcom: slowLongWindows } },
      }),
    });
    const fixture = await createParticipants(database.db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(
      database.db,
      participantId,
      new Date(sims.clock.nowMs() - 30 * DAY - 5 * 60_000),
    );
    const connectionId = await linkForSync(database.db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Dexcom',
      account: 'SandboxUser4',
      metrics: ['egv'],
    });
    await enqueueSync(jobs.boss, { connectionId, kind: 'backfill' });

    const runsOf = () =>
      database.db
        .select()
        .from(syncRuns)
        .where(eq(syncRuns.participantDeviceId, connectionId))
        .orderBy(syncRuns.id);
    await waitFor(
      async () => (await runsOf()).some((run) => run.outcome === 'succeeded'),
      60_000,
      async () =>
        JSON.stringify(
          (await runsOf()).map((run) => ({
            kind: run.kind,
            outcome: run.outcome,
            windows: run.windows,
          })),
        ),
    );
    const runs = await runsOf();
    expect(runs.map((run) => run.outcome)).toEqual(['partial', 'succeeded']);
    // The follow-up covered the end of the backfill: up to now.
    const windows = runs[1]!.windows as Array<{ to: string }>;
    expect(windows.at(-1)!.to).toBe(sims.clock.now().toISOString());
    const [cursor] = (
      await database.db.execute<{ synced_until: Date | string }>(
        sql`select synced_until from sync_cursors where participant_device_id = ${connectionId} and metric_key = 'egv'`,
      )
    ).rows;
    expect(new Date(cursor!.synced_until).toISOString()).toBe(sims.clock.now().toISOString());
  });
});

// Several processes need one database server: these run on PostgreSQL (TEST_DATABASE_URL).
if (process.env.TEST_DATABASE_URL) {
  describe('sync worker processes on one PostgreSQL', () => {
    let database: Database;
    let sims: SyncSimulators;
    const children: ChildProcess[] = [];

    const startWorker = async (): Promise<ChildProcess> => {
      const child = spawn(
        process.execPath,
        ['--import', 'tsx', path.join(import.meta.dirname, 'test-worker.ts')],
        {
          env: {
            ...process.env,
            DATABASE_URL: database.connectionString!,
            SYNC_TEST_PROVIDERS: JSON.stringify(sims.providers),
            SYNC_TEST_KEY: sims.encryptionKey,
            SYNC_TEST_RUN_SECONDS: '5',
            SYNC_TEST_LEASE_MS: '10000',
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      children.push(child);
      await new Promise<void>((resolve, reject) => {
        child.once('exit', (code) => reject(new Error(`worker exited with ${code}`)));
        child.stdout!.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('ready')) resolve();
        });
      });
      return child;
    };
    const stopWorker = (child: ChildProcess) =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });

    beforeAll(async () => {
      database = await createTestDatabase();
      sims = await startSyncSimulators();
    });
    afterAll(async () => {
      await Promise.all(children.map(stopWorker));
      await sims?.close();
      await database?.close();
    });

    it('a worker killed mid-run: the next job resumes from the checkpoint and the rows equal an uninterrupted run', async () => {
      const reference = await linkedParticipant(database, sims, 'SandboxUser1', 300);
      const victim = await linkedParticipant(database, sims, 'SandboxUser1', 300);
      const service = buildSyncService(database, {
        providers: sims.providers,
        encryptionKey: sims.encryptionKey,
      });
      expect(
        (
          await service.syncConnection(reference.connectionId, {
            kind: 'backfill',
            owner: randomUUID(),
          })
        ).outcome,
      ).toBe('succeeded');

      const first = await startWorker();
      const boss = await startJobs({ database, logger: quiet, schedule: false, jobs: [] });
      await boss.boss.send(
        'sync.connection',
        { connectionId: victim.connectionId, kind: 'backfill' },
        { singletonKey: `connection:${victim.connectionId}` },
      );
      // Killed once the run has stored its first windows.
      await waitFor(async () => {
        const [row] = (
          await database.db.execute<{ n: number }>(
            sql`select count(*)::int as n from stored_readings where participant_id = ${victim.participantId}`,
          )
        ).rows;
        return Number(row!.n) > 0;
      });
      first.kill('SIGKILL');
      await new Promise((resolve) => first.once('exit', resolve));
      const atKill = (await egvsOf(database, victim.participantId)).length;
      const reference_ = await egvsOf(database, reference.participantId);
      expect(atKill).toBeLessThan(reference_.length);

      // A new worker and a new job (the scheduler's next tick): it waits out the dead worker's lease and resumes.
      await startWorker();
      await boss.boss.send(
        'sync.connection',
        { connectionId: victim.connectionId, kind: 'incremental' },
        { singletonKey: `connection:${victim.connectionId}` },
      );
      // Usually one or two time boxes after the dead worker's lease (10 s) ran out. Seen once
      // over 90 s on CI: the wait allows for pg-boss expiring the dead run and retrying it
      // (expiry 70 s + retry delay 30 s after its supervision notices), and says what it saw.
      await waitFor(
        async () => {
          const runs = await database.db
            .select()
            .from(syncRuns)
            .where(eq(syncRuns.participantDeviceId, victim.connectionId));
          return runs.some((run) => run.outcome === 'succeeded');
        },
        180_000,
        async () => {
          const jobs = (
            await database.db.execute(
              sql`select state, data->>'kind' as kind, retry_count, created_on, started_on, completed_on, start_after from pgboss.job where name = 'sync.connection' and data->>'connectionId' = ${String(victim.connectionId)} order by created_on`,
            )
          ).rows;
          const runs = await database.db
            .select()
            .from(syncRuns)
            .where(eq(syncRuns.participantDeviceId, victim.connectionId));
          return JSON.stringify({
            jobs,
            runs: runs.map((run) => ({
              kind: run.kind,
              outcome: run.outcome,
              startedAt: run.startedAt,
              finishedAt: run.finishedAt,
              rowsInserted: run.rowsInserted,
            })),
          });
        },
      );
      await boss.stop();
      expect(await egvsOf(database, victim.participantId)).toEqual(reference_);
      const runs = await database.db
        .select()
        .from(syncRuns)
        .where(eq(syncRuns.participantDeviceId, victim.connectionId));
      // The killed run never finished; the resumed one did not start from the beginning.
      expect(runs.some((run) => run.outcome === 'running')).toBe(true);
      // Every row was inserted once: by the killed run up to its checkpoint, then by the runs that resumed.
      expect(runs.reduce((sum, run) => sum + run.rowsInserted, 0)).toBe(reference_.length);
      const killed = runs.find((run) => run.outcome === 'running')!;
      expect(killed.rowsInserted).toBeLessThanOrEqual(atKill);
    });

    it('two worker processes: each connection is synced by one of them at a time', async () => {
      await Promise.all(children.map(stopWorker));
      const connections = await Promise.all(
        ['SandboxUser2', 'SandboxUser3', 'SandboxUser6'].map((account) =>
          linkedParticipant(database, sims, account, 200),
        ),
      );
      await Promise.all([startWorker(), startWorker()]);
      const boss = await startJobs({ database, logger: quiet, schedule: false, jobs: [] });
      // Many jobs per connection at once, past the queue's de-duplication (distinct keys):
      // only the connection's lease keeps two workers from syncing it together.
      const ids = connections.map((c) => c.connectionId);
      for (let round = 0; round < 4; round++) {
        for (const connectionId of ids) {
          await boss.boss.send(
            'sync.connection',
            { connectionId, kind: 'manual', force: true },
            { singletonKey: `test:${connectionId}:${round}` },
          );
        }
      }
      await waitFor(async () => {
        const [row] = (
          await database.db.execute<{ n: number }>(
            sql`select count(*)::int as n from pgboss.job where name = 'sync.connection' and state in ('created', 'retry', 'active') and (data->>'connectionId')::int in (${sql.join(
              ids.map((id) => sql`${id}`),
              sql`, `,
            )})`,
          )
        ).rows;
        return Number(row!.n) === 0;
      });
      await boss.stop();
      for (const { connectionId } of connections) {
        const runs = await database.db
          .select()
          .from(syncRuns)
          .where(eq(syncRuns.participantDeviceId, connectionId))
          .orderBy(syncRuns.startedAt);
        expect(runs.length).toBeGreaterThan(0);
        for (let i = 1; i < runs.length; i++) {
          expect(runs[i - 1]!.finishedAt!.getTime()).toBeLessThanOrEqual(
            runs[i]!.startedAt.getTime(),
          );
        }
        expect(runs.every((run) => run.outcome === 'succeeded' || run.outcome === 'partial')).toBe(
          true,
        );
        expect(runs.at(-1)!.outcome).toBe('succeeded');
      }
    });
  });
}
