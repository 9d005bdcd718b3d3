import PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import type { JobDefinition, JobLogger } from './types';

export type { JobDefinition, JobLogger } from './types';

export type Jobs = {
  boss: PgBoss;
  /** Stops workers and the scheduler, waiting for running jobs; leaves the database open. */
  stop(): Promise<void>;
};

export type StartJobsOptions = {
  database: Database;
  logger: JobLogger;
  /** Register cron schedules and run the scheduler (default true). */
  schedule?: boolean;
  /** How often idle workers poll (seconds, ≥ 0.5; default 2). Tests use 0.5. */
  pollingIntervalSeconds?: number;
  /** Jobs to run: `jobDefinitions(config)` from registry.ts (a test may pass one job). */
  jobs: readonly JobDefinition[];
  /**
   * How often pg-boss supervises (expires runs whose worker died, then retries them), in
   * seconds, ≥ 1; pg-boss's default (120) when unset. Tests use 1 to see a retry quickly.
   */
  maintenanceIntervalSeconds?: number;
};

/**
 * Starts pg-boss on the application database: its own pool on PostgreSQL, or our PGlite
 * instance through pg-boss's `db` option (`database.executor`). Creates every queue,
 * starts its worker and, when `schedule` is on, registers its cron schedule.
 *
 * PGlite has one connection: a job must not be sent from inside an open database
 * transaction there (the send would wait for the transaction that waits for it).
 * Throws when pg-boss cannot start (e.g. its schema migration fails).
 */
export async function startJobs(options: StartJobsOptions): Promise<Jobs> {
  const {
    database,
    logger,
    schedule = true,
    pollingIntervalSeconds,
    jobs,
    maintenanceIntervalSeconds,
  } = options;
  const common = {
    schedule,
    supervise: true,
    migrate: true,
    ...(pollingIntervalSeconds === undefined ? {} : { pollingIntervalSeconds }),
    ...(maintenanceIntervalSeconds === undefined ? {} : { maintenanceIntervalSeconds }),
  };
  const boss =
    database.kind === 'postgres'
      ? new PgBoss({
          ...common,
          connectionString: requireConnectionString(database),
          max: 4,
          application_name: 'trialpulse-jobs',
        })
      : new PgBoss({ ...common, db: database.executor as PgBoss.Db });

  let stopping = false;
  boss.on('error', (error) => {
    // A poll racing the shutdown may fail on a closing connection; that is expected.
    if (!stopping) logger.error({ err: error }, 'pg-boss error');
  });

  await boss.start();
  try {
    for (const job of jobs)
      await registerJob(boss, job, { database, logger, schedule, pollingIntervalSeconds });
  } catch (error) {
    stopping = true;
    await boss.stop({ graceful: false, wait: true });
    throw error;
  }
  logger.info(
    { queues: jobs.map((job) => job.name), database: database.kind, schedule },
    'jobs started',
  );

  return {
    boss,
    async stop() {
      if (stopping) return;
      stopping = true;
      const stopped = new Promise<void>((resolve) => boss.once('stopped', () => resolve()));
      await boss.stop({ graceful: true, wait: true, timeout: 10_000 });
      await stopped;
    },
  };
}

async function registerJob(
  boss: PgBoss,
  job: JobDefinition,
  context: {
    database: Database;
    logger: JobLogger;
    schedule: boolean;
    pollingIntervalSeconds?: number;
  },
): Promise<void> {
  const { database, logger } = context;
  await boss.createQueue(job.name, { name: job.name, ...job.queue });
  const workOptions = {
    ...(context.pollingIntervalSeconds === undefined
      ? {}
      : { pollingIntervalSeconds: context.pollingIntervalSeconds }),
    ...job.work,
  };
  await boss.work<object>(job.name, workOptions, async (batch) => {
    for (const item of batch) {
      try {
        await job.handle(item, { database, logger, boss });
      } catch (error) {
        logger.error({ err: error, job: job.name, jobId: item.id }, 'job failed');
        throw error;
      }
    }
  });
  // Without scheduling (e.g. extra workers) existing schedules are left as they are.
  if (job.cron && context.schedule) await boss.schedule(job.name, job.cron, {}, { tz: 'UTC' });
}

function requireConnectionString(database: Database): string {
  if (!database.connectionString)
    throw new Error('PostgreSQL database without a connection string');
  return database.connectionString;
}
