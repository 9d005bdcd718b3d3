import { createRequire } from 'node:module';
import PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import { isDatabaseUnavailable } from '../lib/db-errors';
import type { JobDefinition, JobLogger, JobServices } from './types';

export type { JobDefinition, JobLogger, JobServices } from './types';

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
   * The process's services (`createServices`, services.ts), handed to every handler. A test
   * whose jobs use none may leave them out: a handler that reaches for one then fails.
   */
  services?: JobServices;
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
  guardPgBossSettlements();
  const {
    database,
    logger,
    schedule = true,
    pollingIntervalSeconds,
    jobs,
    maintenanceIntervalSeconds,
  } = options;
  const services = options.services ?? noServices;
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
    if (!stopping) logPgBossError(logger, error);
  });

  await boss.start();
  try {
    for (const job of jobs)
      await registerJob(boss, job, {
        database,
        logger,
        services,
        schedule,
        pollingIntervalSeconds,
      });
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
    services: JobServices;
    schedule: boolean;
    pollingIntervalSeconds?: number;
  },
): Promise<void> {
  const { database, logger, services } = context;
  await boss.createQueue(job.name, { name: job.name, ...job.queue });
  // createQueue leaves an existing queue as it was: a changed retry or expiry reaches a
  // database made by an earlier version only through updateQueue.
  await boss.updateQueue(job.name, { name: job.name, ...job.queue });
  const workOptions = {
    ...(context.pollingIntervalSeconds === undefined
      ? {}
      : { pollingIntervalSeconds: context.pollingIntervalSeconds }),
    ...job.work,
  };
  await boss.work<object>(job.name, workOptions, async (batch) => {
    for (const item of batch) {
      try {
        await job.handle(item, { database, logger, boss, services });
      } catch (error) {
        // A database that went away mid-job is an expected fault (pg-boss retries the job): warn.
        if (isDatabaseUnavailable(error))
          logger.warn(
            { err: error, job: job.name, jobId: item.id },
            'job failed: database unavailable, retried',
          );
        else logger.error({ err: error, job: job.name, jobId: item.id }, 'job failed');
        throw error;
      }
    }
  });
  // Without scheduling (e.g. extra workers) existing schedules are left as they are.
  if (job.cron && context.schedule) await boss.schedule(job.name, job.cron, {}, { tz: 'UTC' });
}

/** Services of a startJobs call given none: any use names the mistake instead of a TypeError. */
const noServices = new Proxy({} as JobServices, {
  get(_target, name) {
    throw new Error(`startJobs was given no services, and a job used services.${String(name)}`);
  },
});

function requireConnectionString(database: Database): string {
  if (!database.connectionString)
    throw new Error('PostgreSQL database without a connection string');
  return database.connectionString;
}

/**
 * pg-boss's own errors (polls, supervision, cron, settlements the guard below caught): a
 * database that is away is expected now and then (a restart, a failover) and logged at warn;
 * anything else at error. pg-boss retries on its next poll either way.
 */
export function logPgBossError(logger: JobLogger, error: unknown): void {
  if (isDatabaseUnavailable(error)) logger.warn({ err: error }, 'pg-boss: database unavailable');
  else logger.error({ err: error }, 'pg-boss error');
}

/** The parts of pg-boss 10's internal Manager (src/manager.js) the guard touches. */
type PgBossManager = {
  complete(name: string, id: unknown, data?: unknown, options?: unknown): Promise<unknown>;
  fail(name: string, id: unknown, data?: unknown, options?: unknown): Promise<unknown>;
  watch(...args: unknown[]): Promise<unknown>;
  emit(event: string, payload: unknown): boolean;
  stopped?: boolean;
};

/** Tries of a settlement while the database is away: 1+2+4+8+15×9 s ≈ 2.5 minutes. */
const SETTLE_RETRIES = 13;

const GUARDED = Symbol.for('trialpulse.pg-boss.settlements-guarded');

/**
 * pg-boss 10.4's worker loop (Manager.watch) records a handler's outcome with
 * `this.complete(…)` / `this.fail(…)` without awaiting or catching them: when the database
 * is away at that moment (a restart: 57P03, a refused connection) the rejection is unhandled
 * and Node ends the process. pg-boss 12 needs Node ≥ 22, so we guard it here.
 *
 * On each Manager that starts a worker, `complete` and `fail` become own methods that catch.
 * While the database is away they try again in the background (1 s, doubling, up to 15 s
 * apart, for about two and a half minutes): a restart is over in seconds, and the outcome
 * reaches pg-boss's table instead of the job sitting `active` until its expiry (up to an
 * hour for an export) and then running again for nothing. Any other failure, or one that
 * outlasts the retries, is emitted as the boss's `error` event (logged by startJobs) and the
 * job is left `active`, so pg-boss's supervision expires it after the queue's
 * `expireInSeconds` and retries it (handlers are idempotent). The public `boss.complete` /
 * `boss.fail` are untouched: pg-boss bound them to the prototype methods at construction,
 * so callers still see their errors. Installed once per process (idempotent).
 *
 * Other pg-boss promises were checked (10.4.2 boss.js, timekeeper.js, worker.js, index.js):
 * supervision, monitoring, cron and clock-skew timers, the worker loop and stop() all catch
 * and emit `error`, which every boss we create listens to.
 */
export function guardPgBossSettlements(): void {
  const requireHere = createRequire(import.meta.url);
  const Manager = requireHere('pg-boss/src/manager.js') as {
    prototype: PgBossManager & { [GUARDED]?: true };
  };
  const prototype = Manager.prototype;
  if (prototype[GUARDED]) return;
  const { watch, complete, fail } = prototype;
  prototype.watch = function guardedWatch(this: PgBossManager, ...args: unknown[]) {
    if (!Object.hasOwn(this, 'complete')) {
      const settle = (method: typeof complete, what: string) =>
        function (
          this: PgBossManager,
          name: string,
          id: unknown,
          data?: unknown,
          options?: unknown,
        ) {
          const attempt = (tries: number): Promise<unknown> =>
            method.call(this, name, id, data, options).catch(async (error: unknown) => {
              if (tries < SETTLE_RETRIES && isDatabaseUnavailable(error) && !this.stopped) {
                await new Promise((resolve) =>
                  setTimeout(resolve, Math.min(15_000, 1_000 * 2 ** tries)),
                );
                return attempt(tries + 1);
              }
              const ids = Array.isArray(id) ? id.join(', ') : String(id);
              this.emit(
                'error',
                new Error(
                  `could not mark job ${ids} of queue ${name} ${what}; pg-boss retries it after its expiry`,
                  {
                    cause: error,
                  },
                ),
              );
              return null;
            });
          return attempt(0);
        };
      Object.defineProperty(this, 'complete', {
        value: settle(complete, 'completed'),
        configurable: true,
        writable: true,
      });
      Object.defineProperty(this, 'fail', {
        value: settle(fail, 'failed'),
        configurable: true,
        writable: true,
      });
    }
    return watch.apply(this, args);
  };
  prototype[GUARDED] = true;
}
