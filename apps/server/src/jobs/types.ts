import type PgBoss from 'pg-boss';
import type { Database } from '../db/client';
import type { Clock } from '../lib/clock';
import type { ReadingsService } from '../modules/sync/readings.service';
import type { SyncService } from '../modules/sync/sync.service';

/** The logging a job needs; pino/Fastify loggers and `console` all fit. */
export type JobLogger = {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
};

export type JobContext = {
  database: Database;
  logger: JobLogger;
  /** pg-boss itself, for jobs that enqueue follow-ups (sync hands over to its next run). */
  boss: PgBoss;
  /** The process's services, built once by `createServices` (services.ts): handlers never build one. */
  services: JobServices;
};

/**
 * What the jobs use of the services (`Services` from services.ts fits). Mail and the digest
 * are named by shape: their modules import `JobLogger` from here.
 */
export type JobServices = {
  clock: Clock;
  readings: ReadingsService;
  sync: SyncService;
  mail: { deliverPending(): Promise<{ sent: number; failed: number }> };
  completenessDigest: { run(): Promise<{ mails: number; reported: number; skipped: boolean }> };
};

/**
 * One queue and its worker. Add new jobs to `jobDefinitions()` in registry.ts; startJobs
 * creates the queue (pg-boss 10 needs the queue before send/work/schedule), starts the
 * worker and, when scheduling is on, registers the cron schedule.
 */
export type JobDefinition<TData extends object = object> = {
  name: string;
  /** Queue options (retries, expiry, policy). */
  queue?: Omit<PgBoss.Queue, 'name'>;
  /** Cron expression, evaluated in UTC. */
  cron?: string;
  /** Worker options; pollingIntervalSeconds defaults to the startJobs option. */
  work?: Omit<PgBoss.WorkOptions, 'includeMetadata'>;
  /** Handles one job; throwing fails the job (pg-boss retries per the queue options). */
  handle(job: PgBoss.Job<TData>, context: JobContext): Promise<unknown>;
};
