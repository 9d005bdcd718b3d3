import { EXPORT_MESSAGES } from '@trialpulse/shared';
import type { Config } from '../../config/env';
import type { JobDefinition } from '../../jobs/types';
import { recordAudit } from '../../lib/audit';
import { systemClock } from '../../lib/clock';
import type { Db } from '../../db/client';
import { createLocalExportStorage, exportRootDir, type ExportStorage } from './export-storage';
import { createExportRepository } from './export.repository';
import {
  EXPORT_RETENTION_MS,
  EXPORT_RUN,
  EXPORT_SILENT_MS,
  runExport,
  type ExportRunOptions,
  type ReadingsFor,
} from './export.service';

export const EXPORT_SWEEP = 'export.sweep';
/** A processing job without a heartbeat for this long lost its worker and its retries: failed. */
export const EXPORT_STALE_MS = 3 * 60 * 60 * 1000;
/** pg-boss gives a run this long before it counts the worker as dead and retries. */
const RUN_EXPIRE_SECONDS = 60 * 60;

export type ExportJobOptions = ExportRunOptions & {
  storage?: ExportStorage;
  /**
   * Tests only: the run queue's retry and expiry (default EXPORT_RUN_QUEUE), so a test sees
   * pg-boss expire and retry a dead worker's run in seconds. Applies when the queue is
   * created (pg-boss keeps the options of the first creator).
   */
  runQueue?: Partial<typeof EXPORT_RUN_QUEUE>;
};

export function exportStorageFor(config: Pick<Config, 'DATA_DIR'>): ExportStorage {
  return createLocalExportStorage(exportRootDir(config.DATA_DIR));
}

/**
 * The sweeper: deletes exports past their 7 days (file and row), has a processing job whose
 * worker died taken over (silent for EXPORT_SILENT_MS: `takeover` enqueues a run, whose
 * claim restarts it), and likewise a pending job whose run was lost before its claim, fails one silent for EXPORT_STALE_MS (its takeovers died too), and
 * removes part files no live job owns.
 */
export async function sweepExports(
  db: Db,
  storage: ExportStorage,
  now: Date,
  takeover?: (jobId: number) => Promise<unknown>,
) {
  const repository = createExportRepository(db);
  let expired = 0;
  for (const job of await repository.expiredJobs(now)) {
    await storage.remove(job.id, job.filePath);
    if (await repository.deleteJob(job.id)) {
      expired += 1;
      await recordAudit(db, {
        action: 'export.expire',
        entityType: 'export_job',
        entityId: job.id,
        teamId: job.teamId,
        before: { status: job.status },
      });
    }
  }
  let stale = 0;
  for (const job of await repository.staleJobs(new Date(now.getTime() - EXPORT_STALE_MS))) {
    if (
      await repository.fail(
        job.id,
        EXPORT_MESSAGES.failedGeneric,
        now,
        new Date(now.getTime() + EXPORT_RETENTION_MS),
      )
    )
      stale += 1;
    await storage.remove(job.id);
  }
  let takenOver = 0;
  if (takeover) {
    const silentSince = new Date(now.getTime() - EXPORT_SILENT_MS);
    const lost = [
      ...(await repository.staleJobs(silentSince)),
      ...(await repository.unclaimedJobs(silentSince)),
    ];
    for (const job of lost) {
      await takeover(job.id);
      takenOver += 1;
    }
  }
  let orphans = 0;
  const unfinished = await storage.listUnfinished();
  const jobs = await repository.existingJobIds([
    ...new Set(unfinished.map((entry) => entry.jobId)),
  ]);
  const removed = new Set<number>();
  for (const { jobId, claim } of unfinished) {
    const job = jobs.get(jobId);
    const live = job && (job.status === 'processing' || job.status === 'pending');
    // A live job's files of the run that holds it stay; an earlier claim's are a dead run's.
    if (live && (claim === null || claim === job.claim)) continue;
    if (!live) {
      if (removed.has(jobId)) continue;
      removed.add(jobId);
      await storage.remove(jobId);
    } else await storage.remove(jobId, null, claim!);
    orphans += 1;
  }
  return { expired, stale, takenOver, orphans };
}

/** The run queue's options: a run whose worker dies is retried after the expiry; the claim restarts it from 0 %. */
const EXPORT_RUN_QUEUE = { retryLimit: 2, retryDelay: 30, expireInSeconds: RUN_EXPIRE_SECONDS };

/** The queues a web process sends to (the request enqueues a run). */
export const EXPORT_SEND_QUEUES = [{ name: EXPORT_RUN, queue: EXPORT_RUN_QUEUE }] as const;

/**
 * The export queues: one run per job, and the sweeper every 15 minutes. Runs read stored
 * readings through the process's readings service (`services.readings` in the job context)
 * unless a test passes `readingsFor`.
 */
export function exportJobDefinitions(
  config: Pick<Config, 'DATA_DIR'>,
  readingsFor?: ReadingsFor,
  options: ExportJobOptions = {},
): JobDefinition[] {
  const storage = options.storage ?? exportStorageFor(config);
  const clock = options.clock ?? systemClock;
  const run: JobDefinition<{ jobId: number }> = {
    name: EXPORT_RUN,
    queue: { ...EXPORT_RUN_QUEUE, ...options.runQueue },
    // One export per worker at a time keeps memory flat whatever the number of jobs.
    work: { batchSize: 1 },
    async handle(job, { database, logger, services }) {
      // The process's readings service (services.ts) unless a test hands its own.
      const deps = { storage, logger, readingsFor: readingsFor ?? (() => services.readings) };
      return runExport(database.db, Number(job.data.jobId), deps, { ...options, clock });
    },
  };
  const sweep: JobDefinition = {
    name: EXPORT_SWEEP,
    // A quick sweep: one whose end was never recorded must not hold the stately queue long.
    queue: { policy: 'stately', retryLimit: 0, expireInSeconds: 60 },
    // Every minute: a dead worker's export is taken over within about a minute (decision 0121).
    cron: '* * * * *',
    async handle(job, { database, logger, boss }) {
      // One takeover run per job and silent period at most: a pending job still waiting its
      // turn in the queue gets a harmless extra run (the first claim wins, the other skips).
      // Not longer: a takeover run cut off by the next fault before it could record anything
      // must be taken over again at the next sweep, not five minutes later (fault test).
      const takeover = (jobId: number) =>
        boss.send(
          EXPORT_RUN,
          { jobId },
          { singletonKey: `takeover:${jobId}`, singletonSeconds: EXPORT_SILENT_MS / 1000 },
        );
      const counts = await sweepExports(database.db, storage, clock.now(), takeover);
      if (counts.takenOver > 0)
        logger.warn({ job: job.name, ...counts }, 'export: runs of stopped workers taken over');
      else if (counts.expired + counts.stale + counts.orphans > 0)
        logger.info({ job: job.name, ...counts }, 'export: sweep');
      return counts;
    },
  };
  return [run as unknown as JobDefinition, sweep];
}
