import PgBoss from 'pg-boss';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { createTestDatabase } from '../test/test-database';
import { startJobs, type Jobs } from './boss';
import { startTcpProxy } from '../test/tcp-proxy';
import type { JobDefinition } from './types';

/**
 * pg-boss 10's worker loop records a handler's outcome without awaiting it: a database that
 * goes away just as a job ends used to reject unhandled and end the process (seen as
 * "the database system is shutting down (57P03) at Manager.fail"). With the guard (jobs/boss.ts
 * guardPgBossSettlements) nothing is unhandled, and the outcome is recorded once the database
 * is back, without running the job again. PostgreSQL only: the workers reach the database
 * through a TCP proxy the test cuts.
 */
describe('pg-boss workers through a database outage (PostgreSQL)', () => {
  let database: Database;
  let proxy: Awaited<ReturnType<typeof startTcpProxy>>;
  let jobs: Jobs | undefined;
  let direct: PgBoss;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    database = await createTestDatabase();
    const url = new URL(database.connectionString!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
  });

  afterAll(async () => {
    await jobs?.stop().catch(() => undefined);
    await direct?.stop({ graceful: false, wait: true }).catch(() => undefined);
    await proxy?.close();
    await database?.close();
    process.off('unhandledRejection', onUnhandled);
  });

  it('a job whose completion cannot be recorded while the database is away is completed once it is back, not run again', async () => {
    const warnings: string[] = [];
    const logger = {
      info: () => undefined,
      warn: (obj: object, msg?: string) =>
        warnings.push(`${msg}: ${(obj as { err?: Error }).err?.message}`),
      error: (obj: object, msg?: string) =>
        warnings.push(`${msg}: ${(obj as { err?: Error }).err?.message}`),
    };

    let runs = 0;
    let started!: () => void;
    const firstRunStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const job: JobDefinition = {
      name: 'test.outage',
      // An expiry far past the test's wait: the completion must come from the guard's own
      // retry, not from pg-boss expiring the run and running the job again.
      queue: { retryLimit: 3, retryDelay: 0, expireInSeconds: 120 },
      async handle() {
        runs += 1;
        if (runs === 1) {
          started();
          await gate;
        }
        return { run: runs };
      },
    };

    jobs = await startJobs({
      database: { ...database, connectionString: proxy.route(database.connectionString!) },
      logger,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      maintenanceIntervalSeconds: 1,
      jobs: [job],
    });
    direct = new PgBoss({
      connectionString: database.connectionString!,
      max: 1,
      schedule: false,
      supervise: false,
      migrate: false,
    });
    direct.on('error', () => undefined);
    await direct.start();
    const jobId = (await direct.send(job.name, {}))!;

    // The handler runs; the database goes away; the handler ends and pg-boss cannot record it.
    await firstRunStarted;
    await proxy.cut();
    release();
    // Still active a few seconds on (the guard keeps trying), and nothing unhandled: without
    // the guard pg-boss's rejection was unhandled here (Node would end the process).
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(runs).toBe(1);
    expect(unhandled.map(String)).toEqual([]);
    expect((await direct.getJobById(job.name, jobId))?.state).toBe('active');

    // Back again: the completion is recorded by the guard's retry; the job is not run again.
    await proxy.restore();
    await expect
      .poll(async () => (await direct.getJobById(job.name, jobId))?.state, { interval: 250 })
      .toBe('completed');
    expect(runs).toBe(1);
    expect(unhandled).toEqual([]);
    expect(warnings.filter((line) => line.includes(`could not mark job ${jobId}`))).toEqual([]);
  });
});
