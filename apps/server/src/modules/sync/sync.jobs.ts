import type PgBoss from 'pg-boss';
import type { Database } from '../../db/client';
import type { SyncRunKind } from '../../db/schema';
import type { JobDefinition } from '../../jobs/types';
import { chunkStoredRows } from './chunk-migration';
import { createReadingsRepository } from './readings.repository';
import { purgeExpiredReadings } from './retention';
import { createSyncRunsRepository } from './sync.repository';
import { SYNC_SCHEDULE_MINUTES, syncAttemptSeconds } from './sync.service';

export const SYNC_CONNECTION_JOB = 'sync.connection';
export const SYNC_SCHEDULE_JOB = 'sync.schedule';
export const SYNC_PARTITIONS_JOB = 'sync.partitions';
export const SYNC_PURGE_JOB = 'sync.purge';
export const SYNC_RECOVER_JOB = 'sync.recover';
export const SYNC_CHUNK_ROWS_JOB = 'sync.chunk-rows';

/** How long one run of the rows-into-chunks migration may start batches (the next run goes on). */
const CHUNK_ROWS_RUN_MS = 20 * 60_000;

export type SyncJobData = {
  connectionId: number;
  kind?: SyncRunKind;
  streams?: string[];
  force?: boolean;
};

/** Months of partitions the partition job keeps ready ahead of now. */
export const PARTITION_MONTHS_AHEAD = 3;

/**
 * Enqueues a sync of one connection. The queue keeps at most one waiting job per
 * connection ('short' policy, keyed by connection): a webhook or the scheduler asking while
 * one waits adds nothing. Running is guarded separately by the connection's lease.
 */
export async function enqueueSync(
  boss: JobSender,
  data: SyncJobData,
  startAfter?: Date,
): Promise<string | null> {
  return boss.send(SYNC_CONNECTION_JOB, data, {
    singletonKey: `connection:${data.connectionId}`,
    ...(startAfter && startAfter.getTime() > Date.now() && { startAfter }),
  });
}

/** What enqueueSync sends through: pg-boss in a worker process, or a web process's send-only queue (jobs/queue.ts). */
export type JobSender = {
  send(name: string, data: object, options: PgBoss.SendOptions): Promise<string | null>;
};

/** The per-connection run queue's options (expiry well after the time box: a job only expires when its worker died). */
export function syncConnectionQueue(runSeconds = 120) {
  return {
    policy: 'short',
    retryLimit: 3,
    retryDelay: 30,
    expireInSeconds: syncAttemptSeconds(runSeconds),
  } as const;
}

/**
 * The queues a web process sends to (webhooks, a new link's backfill): created with the
 * workers' options, as pg-boss keeps the first creator's.
 */
export function syncSendQueues(runSeconds = 120) {
  return [{ name: SYNC_CONNECTION_JOB, queue: syncConnectionQueue(runSeconds) }];
}

/**
 * Takes over the runs of workers that died (decision 0121): closes each run left `running`
 * without a live lease as failed (`worker_stopped`) and enqueues a forced sync of its
 * connection, which resumes from the checkpointed cursors. Runs every minute and when a
 * worker process starts (with the scheduler's first tick).
 */
export async function recoverAbandonedRuns(database: Database, sender: JobSender, now: Date) {
  const closed = await createSyncRunsRepository(database.db).closeAbandonedRuns(now);
  let queued = 0;
  for (const connectionId of new Set(closed.map((run) => run.participantDeviceId))) {
    const kind = closed.find((run) => run.participantDeviceId === connectionId)!.kind;
    if (await enqueueSync(sender, { connectionId, kind, force: true })) queued += 1;
  }
  return { closed: closed.length, queued };
}

/**
 * The sync's jobs (decision 0036): per-connection runs, the 15-minute scheduler, partitions,
 * purge, recovery. Runs use the process's sync service (`services.sync`, createServices);
 * `runSeconds` sizes the run queue's expiry and must match the service's time box.
 */
export function createSyncJobs(settings: { runSeconds?: number } = {}): JobDefinition[] {
  const runSeconds = settings.runSeconds ?? 120;

  const connectionJob: JobDefinition<SyncJobData> = {
    name: SYNC_CONNECTION_JOB,
    queue: syncConnectionQueue(runSeconds),
    async handle(job, { logger, boss, services }) {
      const { connectionId, kind = 'incremental', streams, force } = job.data;
      const result = await services.sync.syncConnection(connectionId, {
        kind,
        owner: job.id,
        ...(streams && { streams }),
        force: force ?? (kind === 'webhook' || kind === 'manual'),
      });
      // Time box reached, quota spent or another worker on it: a follow-up job goes on later,
      // with the streams the run left unfinished (forced: their cursors may look fresh).
      if (result.continueAt) {
        const followUp = result.continueStreams
          ? { streams: result.continueStreams, force: true }
          : { ...(streams && { streams }), ...(force !== undefined && { force }) };
        await enqueueSync(boss, { connectionId, kind, ...followUp }, result.continueAt);
      }
      logger.info(
        { job: job.name, jobId: job.id, connectionId, ...result },
        'sync: connection run',
      );
      return result;
    },
  };

  const scheduleJob: JobDefinition = {
    name: SYNC_SCHEDULE_JOB,
    queue: { retryLimit: 1, expireInSeconds: 5 * 60 },
    cron: `*/${SYNC_SCHEDULE_MINUTES} * * * *`,
    async handle(job, { database, logger, boss }) {
      const recovered = await recoverAbandonedRuns(database, boss, new Date());
      if (recovered.closed > 0)
        logger.warn(
          { job: job.name, ...recovered },
          'sync: runs of stopped workers closed and taken over',
        );
      const ids = await createSyncRunsRepository(database.db).syncableConnectionIds();
      let queued = 0;
      for (const connectionId of ids)
        if (await enqueueSync(boss, { connectionId, kind: 'incremental' })) queued += 1;
      logger.info(
        { job: job.name, jobId: job.id, connections: ids.length, queued },
        'sync: scheduled',
      );
      return { connections: ids.length, queued };
    },
  };

  const partitionsJob: JobDefinition = {
    name: SYNC_PARTITIONS_JOB,
    queue: { retryLimit: 2, expireInSeconds: 5 * 60 },
    cron: '7 0 * * *',
    async handle(job, { database, logger }) {
      const now = new Date();
      const months = Array.from(
        { length: PARTITION_MONTHS_AHEAD + 1 },
        (_, index) => new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + index, 1)),
      );
      await createReadingsRepository(database.db).ensurePartitions(months);
      logger.info(
        { job: job.name, jobId: job.id, months: months.length },
        'sync: partitions ready',
      );
      return { months: months.length };
    },
  };

  const purgeJob: JobDefinition = {
    name: SYNC_PURGE_JOB,
    queue: { retryLimit: 2, expireInSeconds: 30 * 60 },
    cron: '23 3 * * *',
    async handle(job, { database, logger, services }) {
      const result = await purgeExpiredReadings(database.db, {
        now: services.clock.now(),
        runId: job.id,
      });
      logger.info({ job: job.name, jobId: job.id, ...result }, 'sync: retention purge');
      return result;
    },
  };

  // Rows of chunked streams stored before chunks existed move into chunks (decision 0255),
  // in short transactions while the server runs; a run cut short resumes on the next.
  const chunkRowsJob: JobDefinition = {
    name: SYNC_CHUNK_ROWS_JOB,
    queue: { policy: 'stately', retryLimit: 1, expireInSeconds: 30 * 60 },
    cron: '41 2 * * *',
    async handle(job, { database, logger }) {
      const result = await chunkStoredRows(database.db, createReadingsRepository(database.db), {
        deadline: Date.now() + CHUNK_ROWS_RUN_MS,
      });
      logger.info({ job: job.name, jobId: job.id, ...result }, 'sync: rows moved into chunks');
      return result;
    },
  };

  const recoverJob: JobDefinition = {
    name: SYNC_RECOVER_JOB,
    // One short statement: a run whose end was never recorded (its worker cut off from the
    // database) must not hold the stately queue for long, or recovery itself would stall.
    queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 60 },
    cron: '* * * * *',
    async handle(job, { database, logger, boss }) {
      const recovered = await recoverAbandonedRuns(database, boss, new Date());
      if (recovered.closed > 0)
        logger.warn(
          { job: job.name, ...recovered },
          'sync: runs of stopped workers closed and taken over',
        );
      return recovered;
    },
  };

  return [
    connectionJob as JobDefinition,
    scheduleJob,
    partitionsJob,
    purgeJob,
    recoverJob,
    chunkRowsJob,
  ];
}
