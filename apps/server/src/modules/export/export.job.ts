import { EXPORT_MESSAGES } from '@trialpulse/shared';
import type { Config } from '../../config/env';
import type { JobDefinition, JobLogger } from '../../jobs/types';
import { APP_VERSION } from '../../lib/app-version';
import { recordAudit } from '../../lib/audit';
import { systemClock, type Clock } from '../../lib/clock';
import type { Db } from '../../db/client';
import type { ReadingsService } from '../sync/readings.service';
import { createLocalExportStorage, exportRootDir, type ExportStorage } from './export-storage';
import { ExportCancelled, type ExportPlan } from './export-plan';
import { writeExport } from './export-writer';
import { createExportRepository } from './export.repository';
import { EXPORT_RETENTION_MS, EXPORT_RUN } from './export.service';

export const EXPORT_SWEEP = 'export.sweep';
/** A processing job without a heartbeat for this long lost its worker and its retries: failed. */
export const EXPORT_STALE_MS = 3 * 60 * 60 * 1000;
/**
 * A processing job is taken over (the sweep enqueues a run; its claim restarts the job) only
 * after this long without a heartbeat: its worker died. A live run beats at least every
 * EXPORT_KEEPALIVE_MS, however slow its pages (decision 0121).
 */
export const EXPORT_SILENT_MS = 60 * 1000;
/** How often a running export touches its row even when no page ends (the heartbeat above). */
export const EXPORT_KEEPALIVE_MS = 15 * 1000;
/** pg-boss gives a run this long before it counts the worker as dead and retries. */
const RUN_EXPIRE_SECONDS = 60 * 60;

/** The stored-readings service on a database (built where services are composed). */
export type ReadingsFor = (db: Db) => Pick<ReadingsService, 'iterate' | 'csv'>;

export type ExportJobOptions = {
  clock?: Clock;
  storage?: ExportStorage;
  /** Rows per database page (tests use small pages to see many heartbeats). */
  pageSize?: number;
  /** Deflate level of the ZIP (default EXPORT_ZIP_LEVEL; the bench compares levels). */
  zipLevel?: number;
  /** Least time between two progress writes (ms; 0 = every page). */
  heartbeatMs?: number;
  /** Tests only: runs after each page is written (to cancel or crash mid-export). */
  afterPage?: (job: { id: number; fileName: string }, page: number) => Promise<void>;
  /**
   * Tests only: the run queue's retry and expiry (default EXPORT_RUN_QUEUE), so a test sees
   * pg-boss expire and retry a dead worker's run in seconds. Applies when the queue is
   * created (pg-boss keeps the options of the first creator).
   */
  runQueue?: Partial<typeof EXPORT_RUN_QUEUE>;
  /** Tests only: how long a processing job must be silent before a retry takes it over (default EXPORT_SILENT_MS). */
  takeoverAfterMs?: number;
  /** Tests only: how often a run touches its row besides its progress (default EXPORT_KEEPALIVE_MS). */
  keepaliveMs?: number;
};

export function exportStorageFor(config: Pick<Config, 'DATA_DIR'>): ExportStorage {
  return createLocalExportStorage(exportRootDir(config.DATA_DIR));
}

/**
 * Builds one export: claims the job (pending, or processing again after a worker died),
 * streams the readings into a part file, commits it (rename) and only then marks the job
 * completed. Cancel (the row was deleted) and failures remove every partial file.
 * Every write after the claim is the claim's own (decision 0121): a run taken over while
 * it was silent (cut off from the database, stalled) finds its heartbeat, completion or
 * failure refused, removes only its own files and stops quietly (`taken_over`).
 */
export async function runExport(
  db: Db,
  jobId: number,
  deps: { storage: ExportStorage; logger: JobLogger; readingsFor: ReadingsFor },
  options: ExportJobOptions = {},
) {
  const { storage, logger } = deps;
  const clock = options.clock ?? systemClock;
  const repository = createExportRepository(db);
  const readings = deps.readingsFor(db);
  const now0 = clock.now();
  const job = await repository.claim(jobId, now0, new Date(now0.getTime() - (options.takeoverAfterMs ?? EXPORT_SILENT_MS)));
  if (!job) return { status: 'skipped' as const };
  const { claim } = job;
  const params = job.jobParams;
  let keepalive: ReturnType<typeof setInterval> | undefined;
  /** Set when a heartbeat was refused: the job was cancelled or another run took it over. */
  let lost = false;
  const takenOver = async () => {
    const row = await repository.jobById(jobId);
    return row !== undefined && row.claim !== claim;
  };
  try {
    // A run taken over leaves its files behind (it died, or it will find them gone and stop).
    await storage.removeEarlierClaims(jobId, claim);
    const device = await repository.findDevice(job.teamId, params.deviceId);
    if (!device) throw new Error('device no longer supported by the team');
    const catalog = device.deviceType ? await repository.listMetrics(device.deviceType) : [];
    const codes = await repository.participantCodes(job.teamId, params.participantIds);
    const plan: ExportPlan = {
      jobId,
      teamId: job.teamId,
      request: {
        fileName: params.fileName,
        startDate: params.startDate,
        endDate: params.endDate,
        participantIds: params.participantIds,
        metrics: params.metrics,
        exportMode: params.exportMode,
        format: params.format ?? 'csv',
        extras: params.extras ?? [],
        trialId: job.trialId ?? 0,
        deviceId: params.deviceId,
      },
      device: { id: device.id, friendlyName: device.friendlyName, brand: device.brand, deviceType: device.deviceType },
      // A participant deleted since the request has no data left to export.
      participants: params.participantIds.filter((id) => codes.has(id)).map((id) => ({ participantId: id, participantCode: codes.get(id)! })),
      metrics: params.metrics.map((key) => {
        const entry = catalog.find((metric) => metric.metricKey === key);
        return { metricKey: key, metricName: entry?.metricName ?? key, units: entry?.units ?? null, category: entry?.category ?? null, description: entry?.description ?? null };
      }),
      softwareVersion: APP_VERSION,
      exportedAt: clock.now(),
    };

    const workDir = await storage.workDir(jobId, claim);
    const heartbeatMs = options.heartbeatMs ?? 1000;
    let lastBeat = 0;
    let lastPercent = -1;
    // A slow page (a big participant's query) must not look like a dead worker to the sweep.
    keepalive = setInterval(() => {
      repository
        .heartbeat(jobId, claim, Math.max(0, lastPercent), clock.now())
        .then((held) => void (held || (lost = true)))
        .catch(() => undefined);
    }, options.keepaliveMs ?? EXPORT_KEEPALIVE_MS);
    keepalive.unref();
    let page = 0;
    const result = await writeExport(
      plan,
      {
        iterate: (query, iterateOptions) => readings.iterate(query, iterateOptions),
        csv: (query, labels, csvOptions) => readings.csv(query, labels, csvOptions),
        pageSize: options.pageSize,
        zipLevel: options.zipLevel,
        async progress(fraction) {
          page += 1;
          if (options.afterPage) await options.afterPage({ id: jobId, fileName: params.fileName }, page);
          if (lost) return false;
          const percent = Math.min(99, Math.floor(fraction * 100));
          const now = clock.now().getTime();
          if (now - lastBeat < heartbeatMs && percent === lastPercent) return true;
          lastBeat = Date.now();
          lastPercent = percent;
          if (!(await repository.heartbeat(jobId, claim, percent, clock.now()))) lost = true;
          return !lost;
        },
      },
      workDir,
      storage.partPath(jobId, claim),
    );
    await storage.removeWork(jobId, claim);
    // The run's own final file: a run taken over meanwhile never replaces the taker's.
    const { key, size } = await storage.commit(jobId, claim);
    const now = clock.now();
    if (!(await repository.complete(jobId, claim, { filePath: key, fileSize: size, now, expiresAt: new Date(now.getTime() + EXPORT_RETENTION_MS) }))) {
      // Cancelled or taken over between the last heartbeat and now.
      await storage.remove(jobId, key, claim);
      if (await takenOver()) {
        logger.info({ job: EXPORT_RUN, exportJobId: jobId, claim }, 'export: taken over by another run; stopped');
        return { status: 'taken_over' as const };
      }
      return { status: 'cancelled' as const };
    }
    logger.info({ job: EXPORT_RUN, exportJobId: jobId, rows: result.totalRows, bytes: size }, 'export: completed');
    return { status: 'completed' as const, rows: result.totalRows, bytes: size };
  } catch (error) {
    // Only this run's files: another run may own the job (and its part file) by now.
    await storage.remove(jobId, null, claim);
    if (error instanceof ExportCancelled) {
      if (await takenOver()) {
        logger.info({ job: EXPORT_RUN, exportJobId: jobId, claim }, 'export: taken over by another run; stopped');
        return { status: 'taken_over' as const };
      }
      logger.info({ job: EXPORT_RUN, exportJobId: jobId }, 'export: cancelled');
      return { status: 'cancelled' as const };
    }
    const now = clock.now();
    if (!(await repository.fail(jobId, EXPORT_MESSAGES.failedGeneric, now, new Date(now.getTime() + EXPORT_RETENTION_MS), claim))) {
      // Not ours any more (taken over, cancelled, done): its error is no longer the job's.
      logger.info({ err: error, job: EXPORT_RUN, exportJobId: jobId, claim }, 'export: a run no longer owning its job stopped');
      return { status: (await takenOver()) ? ('taken_over' as const) : ('cancelled' as const) };
    }
    logger.error({ err: error, job: EXPORT_RUN, exportJobId: jobId }, 'export: failed');
    return { status: 'failed' as const };
  } finally {
    clearInterval(keepalive);
  }
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
      await recordAudit(db, { action: 'export.expire', entityType: 'export_job', entityId: job.id, teamId: job.teamId, before: { status: job.status } });
    }
  }
  let stale = 0;
  for (const job of await repository.staleJobs(new Date(now.getTime() - EXPORT_STALE_MS))) {
    if (await repository.fail(job.id, EXPORT_MESSAGES.failedGeneric, now, new Date(now.getTime() + EXPORT_RETENTION_MS))) stale += 1;
    await storage.remove(job.id);
  }
  let takenOver = 0;
  if (takeover) {
    const silentSince = new Date(now.getTime() - EXPORT_SILENT_MS);
    const lost = [...(await repository.staleJobs(silentSince)), ...(await repository.unclaimedJobs(silentSince))];
    for (const job of lost) {
      await takeover(job.id);
      takenOver += 1;
    }
  }
  let orphans = 0;
  const unfinished = await storage.listUnfinished();
  const jobs = await repository.existingJobIds([...new Set(unfinished.map((entry) => entry.jobId))]);
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

/** The export queues: one run per job, and the sweeper every 15 minutes. */
export function exportJobDefinitions(
  config: Pick<Config, 'DATA_DIR'>,
  readingsFor: ReadingsFor,
  options: ExportJobOptions = {},
): JobDefinition[] {
  const storage = options.storage ?? exportStorageFor(config);
  const clock = options.clock ?? systemClock;
  const run: JobDefinition<{ jobId: number }> = {
    name: EXPORT_RUN,
    queue: { ...EXPORT_RUN_QUEUE, ...options.runQueue },
    // One export per worker at a time keeps memory flat whatever the number of jobs.
    work: { batchSize: 1 },
    async handle(job, { database, logger }) {
      return runExport(database.db, Number(job.data.jobId), { storage, logger, readingsFor }, { ...options, clock });
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
        boss.send(EXPORT_RUN, { jobId }, { singletonKey: `takeover:${jobId}`, singletonSeconds: EXPORT_SILENT_MS / 1000 });
      const counts = await sweepExports(database.db, storage, clock.now(), takeover);
      if (counts.takenOver > 0) logger.warn({ job: job.name, ...counts }, 'export: runs of stopped workers taken over');
      else if (counts.expired + counts.stale + counts.orphans > 0) logger.info({ job: job.name, ...counts }, 'export: sweep');
      return counts;
    },
  };
  return [run as unknown as JobDefinition, sweep];
}
