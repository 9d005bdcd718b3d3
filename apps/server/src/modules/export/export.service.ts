import type { Readable } from 'node:stream';
import {
  EXPORT_MESSAGES,
  LIMITS,
  exportZipName,
  type ExportDevice,
  type ExportJob,
  type ExportMetric,
  type ExportParticipant,
  type ExportRequest,
  type ExportTrial,
} from '@trialpulse/shared';
import type { Db } from '../../db/client';
import type { BulkExportParams, DeviceBrand } from '../../db/schema';
import type { JobQueue } from '../../jobs/queue';
import type { MetricsService } from '../metrics/metrics.service';
import type { JobLogger } from '../../jobs/types';
import { APP_VERSION } from '../../lib/app-version';
import { recordAudit } from '../../lib/audit';
import { systemClock, type Clock } from '../../lib/clock';
import { isDbId } from '../../lib/db-ids';
import type { Meta } from '../../lib/request-meta';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { AccessService } from '../access/access.service';
import type { ReadingsService } from '../sync/readings.service';
import { ExportCancelled, type ExportPlan } from './export-plan';
import type { ExportStorage } from './export-storage';
import { writeExport } from './export-writer';
import { BULK_FILES_ENTRY, writeBulkExport, type BulkFiles } from './export-bulk';
import {
  createExportRepository,
  isBulkJob,
  type BulkJobRow,
  type ExportRepository,
  type ZipJobRow,
} from './export.repository';

/** The pg-boss queue that builds export files. */
export const EXPORT_RUN = 'export.run';
export const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a finished (or failed) export is kept (§9: 7 days). */
export const EXPORT_RETENTION_MS = LIMITS.exportFileRetentionDays * DAY_MS;

/**
 * A processing job is taken over (the sweep enqueues a run; its claim restarts the job) only
 * after this long without a heartbeat: its worker died. A live run beats at least every
 * EXPORT_KEEPALIVE_MS, however slow its pages (decision 0121).
 */
export const EXPORT_SILENT_MS = 60 * 1000;
/** How often a running export touches its row even when no page ends (the heartbeat above). */
export const EXPORT_KEEPALIVE_MS = 15 * 1000;

/** The stored-readings service on a database (built where services are composed). */
export type ReadingsFor = (db: Db) => Pick<ReadingsService, 'iterate' | 'csv' | 'dayOffsets'>;

export type ExportRunOptions = {
  clock?: Clock;
  /** Rows per database page (tests use small pages to see many heartbeats). */
  pageSize?: number;
  /** Deflate level of the ZIP (default EXPORT_ZIP_LEVEL; the bench compares levels). */
  zipLevel?: number;
  /** Least time between two progress writes (ms; 0 = every page). */
  heartbeatMs?: number;
  /** Tests only: runs after each page is written (to cancel or crash mid-export). */
  afterPage?: (job: { id: number; fileName: string }, page: number) => Promise<void>;
  /** Tests only: how long a processing job must be silent before a retry takes it over (default EXPORT_SILENT_MS). */
  takeoverAfterMs?: number;
  /** Tests only: how often a run touches its row besides its progress (default EXPORT_KEEPALIVE_MS). */
  keepaliveMs?: number;
  /** Resources per NDJSON file of a Bulk Data export (default BULK_RESOURCES_PER_FILE; tests split). */
  bulkResourcesPerFile?: number;
};

const ACTION = 'export.create';
const jobNotFound = () => AppError.notFound(EXPORT_MESSAGES.jobNotFound);

export function presentJob(row: ZipJobRow): ExportJob {
  const params = row.jobParams;
  return {
    id: row.id,
    status: row.status,
    job_params: {
      fileName: params.fileName,
      startDate: params.startDate,
      endDate: params.endDate,
      participantIds: params.participantIds,
      metrics: params.metrics,
      exportMode: params.exportMode,
      format: params.format ?? 'csv',
      extras: params.extras ?? [],
    },
    created_at: row.createdAt.toISOString(),
    file_size: row.status === 'completed' ? row.fileSize : null,
    error_message: row.status === 'failed' ? row.errorMessage : null,
    progress: row.progress,
    expires_at: row.expiresAt ? row.expiresAt.toISOString() : null,
  };
}

/**
 * The eight dataExport calls (device-data spec §7). Every call is scoped to the caller's
 * selected team; jobs are the caller's own (decision 0045): another user's or another
 * team's job answers 404.
 */
export function createExportService(deps: {
  repository: ExportRepository;
  access: Pick<AccessService, 'requireTeam' | 'requireTrial' | 'visibleTrialIds'>;
  storage: ExportStorage;
  queue: Pick<JobQueue, 'send'>;
  clock: Clock;
  readings: Pick<ReadingsService, 'participantsWithReadings'>;
  metrics: Pick<MetricsService, 'storedMetricKeys'>;
  /** Where a run the queue could not take is reported (the process's logger). */
  log?: (obj: object, msg: string) => void;
}) {
  const { repository, access, storage, queue, clock, readings } = deps;

  /**
   * Hands a recorded job to the workers. When the queue cannot take the run (the database
   * went away after the job committed), the job stays pending and the sweep's takeover runs
   * it once a worker is available (EXPORT_SILENT_MS after it was recorded). The call still
   * succeeds: an error would be false, since the export runs anyway, and the caller's retry
   * would build it twice (the fault test saw a Bulk Data kick-off answer 503 while its
   * export ran). Deleting or failing the job instead needs the same database that just went
   * away.
   */
  async function enqueueRun(jobId: number) {
    try {
      // The job row exists before the queue entry: a worker never sees an unknown id.
      await queue.send(EXPORT_RUN, { jobId }, { singletonKey: String(jobId) });
    } catch (error) {
      deps.log?.({ err: error, jobId }, 'export: run not queued; the sweep takes it over');
    }
  }

  /**
   * Participants of the trial that have (or had) a connection to a device of the brand, or
   * stored readings of it (decision 0045): a revoked connection keeps its data.
   */
  async function participantsOf(
    teamId: number,
    trialId: number,
    brand: DeviceBrand,
  ): Promise<ExportParticipant[]> {
    const rows = await repository.listTrialParticipants(teamId, trialId, brand);
    const withReadings = await readings.participantsWithReadings(
      teamId,
      brand,
      rows.filter((row) => !row.connected).map((row) => row.participantId),
    );
    return rows
      .filter((row) => row.connected || withReadings.has(row.participantId))
      .map(({ participantId, participantCode }) => ({ participantId, participantCode }));
  }
  const requireExportTeam = (auth: AuthContext) => access.requireTeam(auth, ACTION);

  async function device(teamId: number, deviceId: number) {
    const found = isDbId(deviceId) ? await repository.findDevice(teamId, deviceId) : undefined;
    if (!found) throw AppError.notFound(EXPORT_MESSAGES.deviceRequired);
    return found;
  }

  async function ownJob(auth: AuthContext, jobId: number) {
    const teamId = requireExportTeam(auth);
    const job = isDbId(jobId) ? await repository.findJob(teamId, auth.userId, jobId) : undefined;
    if (!job) throw jobNotFound();
    return { teamId, job };
  }

  return {
    async trials(auth: AuthContext): Promise<ExportTrial[]> {
      const { teamId, trialIds } = await access.visibleTrialIds(auth, ACTION);
      return repository.listTrials(teamId, trialIds);
    },

    async devices(auth: AuthContext): Promise<ExportDevice[]> {
      const teamId = requireExportTeam(auth);
      const rows = await repository.listDevices(teamId);
      return rows.map(({ id, friendlyName, brand, deviceType }) => ({
        id,
        friendlyName,
        brand,
        deviceType,
      }));
    },

    async participants(
      auth: AuthContext,
      trialId: number,
      deviceId: number,
    ): Promise<ExportParticipant[]> {
      const { teamId } = await access.requireTrial(auth, trialId, ACTION);
      const found = await device(teamId, deviceId);
      return participantsOf(teamId, trialId, found.brand);
    },

    async metrics(auth: AuthContext, deviceId: number): Promise<ExportMetric[]> {
      const teamId = requireExportTeam(auth);
      const found = await device(teamId, deviceId);
      if (!found.deviceType) return [];
      const [rows, stored] = await Promise.all([
        repository.listMetrics(found.deviceType),
        deps.metrics.storedMetricKeys(teamId, deviceId),
      ]);
      return rows.map((row) => ({
        metric_key: row.metricKey,
        metric_name: row.metricName,
        category: row.category,
        units: row.units,
        stored: stored.has(row.metricKey),
      }));
    },

    async jobs(auth: AuthContext, limit: number) {
      const teamId = requireExportTeam(auth);
      const { rows, total } = await repository.listJobs(teamId, auth.userId, limit);
      return { success: true as const, data: rows.map(presentJob), total };
    },

    /**
     * Checks the request against what the caller may see (the §5 rules were checked by the
     * schema), records the job as pending and hands it to the workers.
     */
    async create(auth: AuthContext, request: ExportRequest, meta: Meta) {
      const { teamId } = await access.requireTrial(auth, request.trialId, ACTION);
      const found = await device(teamId, request.deviceId);
      const allowedParticipants = new Set(
        (await participantsOf(teamId, request.trialId, found.brand)).map((p) => p.participantId),
      );
      if (request.participantIds.some((id) => !allowedParticipants.has(id))) {
        throw AppError.badRequest(EXPORT_MESSAGES.unknownParticipants, [
          { field: 'participantIds', message: EXPORT_MESSAGES.unknownParticipants },
        ]);
      }
      const allowedMetrics = new Set(
        found.deviceType
          ? (await repository.listMetrics(found.deviceType)).map((m) => m.metricKey)
          : [],
      );
      if (request.metrics.some((key) => !allowedMetrics.has(key))) {
        throw AppError.badRequest(EXPORT_MESSAGES.unknownMetrics, [
          { field: 'metrics', message: EXPORT_MESSAGES.unknownMetrics },
        ]);
      }
      // No file is silently empty: a metric the team does not store has no rows (issue 28).
      const stored = await deps.metrics.storedMetricKeys(teamId, request.deviceId);
      const notStored = request.metrics.filter((key) => !stored.has(key));
      if (notStored.length > 0) {
        const message = EXPORT_MESSAGES.metricsNotStored(notStored.join(', '));
        throw AppError.badRequest(message, [{ field: 'metrics', message }]);
      }
      // The job and its audit row commit together: a database that goes away leaves neither.
      const job = await repository.db.transaction(async (tx) => {
        const row = await repository.insertJob(
          {
            teamId,
            trialId: request.trialId,
            createdBy: auth.userId,
            jobParams: {
              fileName: request.fileName,
              startDate: request.startDate,
              endDate: request.endDate,
              participantIds: request.participantIds,
              metrics: request.metrics,
              deviceId: request.deviceId,
              exportMode: request.exportMode,
              format: request.format,
              extras: request.extras,
            },
          },
          tx,
        );
        await recordAudit(tx, {
          action: 'export.create',
          entityType: 'export_job',
          entityId: row.id,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          after: {
            trialId: request.trialId,
            deviceId: request.deviceId,
            participantIds: request.participantIds,
            metrics: request.metrics,
            startDate: request.startDate,
            endDate: request.endDate,
            exportMode: request.exportMode,
            format: request.format,
            extras: request.extras,
          },
        });
        return row;
      });
      await enqueueRun(job.id);
      return { success: true as const, message: EXPORT_MESSAGES.created, jobId: job.id };
    },

    /**
     * The finished ZIP of the caller's own completed, unexpired job; audited with who
     * downloaded which job.
     */
    async download(
      auth: AuthContext,
      jobId: number,
      meta: Meta,
    ): Promise<{ stream: Readable; size: number; fileName: string }> {
      const { teamId, job } = await ownJob(auth, jobId);
      if (job.status !== 'completed' || !job.filePath)
        throw AppError.conflict(EXPORT_MESSAGES.notReady);
      if (job.expiresAt && job.expiresAt <= clock.now())
        throw new AppError(410, EXPORT_MESSAGES.expired, { reason: 'EXPORT_EXPIRED' });
      const file = await storage.open(job.filePath);
      if (!file) throw new AppError(410, EXPORT_MESSAGES.expired, { reason: 'EXPORT_EXPIRED' });
      await recordAudit(repository.db, {
        action: 'export.download',
        entityType: 'export_job',
        entityId: job.id,
        actorUserId: auth.userId,
        teamId,
        requestId: meta.requestId,
        after: {
          fileSize: file.size,
          participantIds: job.jobParams.participantIds,
          metrics: job.jobParams.metrics,
        },
      });
      return { ...file, fileName: exportZipName(job.jobParams.fileName) };
    },

    /**
     * Deletes a completed or failed job with its file, or cancels a pending or processing
     * one (§4: cancel uses the delete call): the row goes, so the worker stops at its next
     * heartbeat and removes its partial files; they are removed here as well.
     */
    async remove(auth: AuthContext, jobId: number, meta: Meta) {
      const { teamId, job } = await ownJob(auth, jobId);
      const deleted = await repository.deleteJob(job.id);
      if (!deleted) throw jobNotFound();
      const cancelled = deleted.status === 'pending' || deleted.status === 'processing';
      await storage.remove(job.id, deleted.filePath);
      await recordAudit(repository.db, {
        action: cancelled ? 'export.cancel' : 'export.delete',
        entityType: 'export_job',
        entityId: job.id,
        actorUserId: auth.userId,
        teamId,
        requestId: meta.requestId,
        before: { status: deleted.status, fileSize: deleted.fileSize },
      });
      return {
        success: true as const,
        message: cancelled ? EXPORT_MESSAGES.cancelled : EXPORT_MESSAGES.deleted,
      };
    },

    // --- FHIR Bulk Data (issue 31): the calls of the fhir-bulk module for a backend client.
    // A job is its team's: any client of the team may poll, download or cancel it; another
    // team's job is not found.

    /** The team's trials (Bulk Data's Group search): what a client of the team may export. */
    async bulkGroups(client: BulkCaller) {
      return repository.teamTrials(client.teamId);
    },

    /**
     * Records a Bulk Data export of the team's trial, kicked off by a backend client, and hands
     * it to the workers like a ZIP export. Undefined when the trial is not the team's (the
     * caller answers 404, revealing nothing of other teams); `busy` when the client has
     * BULK_MAX_UNFINISHED exports pending or running. A kick-off the queue cannot take is
     * still accepted (see enqueueRun).
     */
    async bulkKickOff(
      client: BulkCaller,
      trialId: number,
      request: Omit<BulkExportParams, 'kind'>,
      meta: Meta,
    ): Promise<{ jobId: number; transactionTime: Date } | 'busy' | undefined> {
      if (!isDbId(trialId)) return undefined;
      const [trial] = await repository.listTrials(client.teamId, [trialId]);
      if (!trial) return undefined;
      // One client cannot fill the workers' queue (the IG lets a server answer 429).
      if ((await repository.unfinishedBulkJobs(client.clientId)) >= BULK_MAX_UNFINISHED)
        return 'busy';
      const job = await repository.db.transaction(async (tx) => {
        const row = await repository.insertBulkJob(
          {
            teamId: client.teamId,
            trialId,
            backendClientId: client.clientId,
            jobParams: { kind: 'fhir-bulk', ...request },
          },
          tx,
        );
        await recordAudit(tx, {
          action: 'export.create',
          entityType: 'export_job',
          entityId: row.id,
          teamId: client.teamId,
          requestId: meta.requestId,
          after: { backendClientId: client.clientId, trialId, ...request },
        });
        return row;
      });
      await enqueueRun(job.id);
      return { jobId: job.id, transactionTime: job.createdAt };
    },

    /**
     * Where the team's Bulk Data export stands: running (with its progress), failed, or
     * completed with its files. Undefined when it is not the team's, was cancelled, or
     * expired (its files are gone or go at the next sweep).
     */
    async bulkStatus(client: BulkCaller, jobId: number): Promise<BulkStatus | undefined> {
      const job = isDbId(jobId) ? await repository.findBulkJob(client.teamId, jobId) : undefined;
      if (!job) return undefined;
      if (job.expiresAt && job.expiresAt <= clock.now()) return undefined;
      const common = { jobId: job.id, request: job.jobParams.request, expiresAt: job.expiresAt };
      if (job.status === 'pending' || job.status === 'processing')
        return { ...common, state: 'running', progress: job.progress };
      if (job.status === 'failed') return { ...common, state: 'failed' };
      const listing = job.filePath ? await storage.openEntry(job.filePath, BULK_FILES_ENTRY) : null;
      if (!listing) return undefined;
      const chunks: Buffer[] = [];
      for await (const chunk of listing.stream) chunks.push(chunk as Buffer);
      const files = JSON.parse(Buffer.concat(chunks).toString('utf8')) as BulkFiles;
      return { ...common, state: 'completed', transactionTime: job.createdAt, files };
    },

    /**
     * Cancels the team's Bulk Data export (running: the worker stops at its next heartbeat) or
     * deletes a finished one, with its files; audited. False when there is none to cancel.
     */
    async bulkCancel(client: BulkCaller, jobId: number, meta: Meta): Promise<boolean> {
      const job = isDbId(jobId) ? await repository.findBulkJob(client.teamId, jobId) : undefined;
      if (!job) return false;
      const deleted = await repository.deleteJob(job.id);
      if (!deleted) return false;
      await storage.remove(job.id, deleted.filePath);
      const cancelled = deleted.status === 'pending' || deleted.status === 'processing';
      await recordAudit(repository.db, {
        action: cancelled ? 'export.cancel' : 'export.delete',
        entityType: 'export_job',
        entityId: job.id,
        teamId: client.teamId,
        requestId: meta.requestId,
        before: { status: deleted.status, fileSize: deleted.fileSize },
        after: { backendClientId: client.clientId },
      });
      return true;
    },

    /**
     * One NDJSON file of the team's completed Bulk Data export, audited with the client and
     * the file. Undefined when the job or file is not there (not the team's, cancelled,
     * expired, not finished, or no such file).
     */
    async bulkFile(client: BulkCaller, jobId: number, name: string, meta: Meta) {
      const status = await this.bulkStatus(client, jobId);
      if (status?.state !== 'completed') return undefined;
      const entry = [...status.files.output, ...status.files.error].find(
        (file) => file.name === name,
      );
      if (!entry) return undefined;
      const job = await repository.findBulkJob(client.teamId, jobId);
      const file = job?.filePath ? await storage.openEntry(job.filePath, entry.name) : null;
      if (!file) return undefined;
      await recordAudit(repository.db, {
        action: 'export.download',
        entityType: 'export_job',
        entityId: jobId,
        teamId: client.teamId,
        requestId: meta.requestId,
        after: {
          backendClientId: client.clientId,
          file: entry.name,
          type: entry.type,
          resources: entry.count,
          fileSize: file.size,
        },
      });
      return { ...file, type: entry.type };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;

/** How many Bulk Data exports one backend client may have pending or running at a time. */
export const BULK_MAX_UNFINISHED = 4;

/** A backend client (SMART Backend Services) asking for its team's Bulk Data exports. */
export type BulkCaller = { clientId: string; teamId: number };

/** A Bulk Data export's state for its status URL. */
export type BulkStatus = { jobId: number; request: string; expiresAt: Date | null } & (
  | { state: 'running'; progress: number }
  | { state: 'failed' }
  | { state: 'completed'; transactionTime: Date; files: BulkFiles }
);

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
  options: ExportRunOptions = {},
) {
  const { storage, logger } = deps;
  const clock = options.clock ?? systemClock;
  const repository = createExportRepository(db);
  const readings = deps.readingsFor(db);
  const now0 = clock.now();
  const job = await repository.claim(
    jobId,
    now0,
    new Date(now0.getTime() - (options.takeoverAfterMs ?? EXPORT_SILENT_MS)),
  );
  if (!job) return { status: 'skipped' as const };
  const { claim } = job;
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
    const fileName = isBulkJob(job) ? `bulk-${jobId}` : (job as ZipJobRow).jobParams.fileName;
    /** After each page: the test hook, then progress and heartbeat; false stops the run. */
    const progress = async (fraction: number) => {
      page += 1;
      if (options.afterPage) await options.afterPage({ id: jobId, fileName }, page);
      if (lost) return false;
      const percent = Math.min(99, Math.floor(fraction * 100));
      const now = clock.now().getTime();
      if (now - lastBeat < heartbeatMs && percent === lastPercent) return true;
      lastBeat = Date.now();
      lastPercent = percent;
      if (!(await repository.heartbeat(jobId, claim, percent, clock.now()))) lost = true;
      return !lost;
    };
    const built = isBulkJob(job)
      ? await buildBulk(job, claim, { repository, readings, storage, progress }, options)
      : await buildZip(
          job as ZipJobRow,
          claim,
          { repository, readings, storage, progress, clock },
          options,
        );
    const { key, size } = built;
    const now = clock.now();
    if (
      !(await repository.complete(jobId, claim, {
        filePath: key,
        fileSize: size,
        now,
        expiresAt: new Date(now.getTime() + EXPORT_RETENTION_MS),
      }))
    ) {
      // Cancelled or taken over between the last heartbeat and now.
      await storage.remove(jobId, key, claim);
      if (await takenOver()) {
        logger.info(
          { job: EXPORT_RUN, exportJobId: jobId, claim },
          'export: taken over by another run; stopped',
        );
        return { status: 'taken_over' as const };
      }
      return { status: 'cancelled' as const };
    }
    logger.info(
      { job: EXPORT_RUN, exportJobId: jobId, rows: built.rows, bytes: size },
      'export: completed',
    );
    return { status: 'completed' as const, rows: built.rows, bytes: size };
  } catch (error) {
    // Only this run's files: another run may own the job (and its part file) by now.
    await storage.remove(jobId, null, claim);
    if (error instanceof ExportCancelled) {
      if (await takenOver()) {
        logger.info(
          { job: EXPORT_RUN, exportJobId: jobId, claim },
          'export: taken over by another run; stopped',
        );
        return { status: 'taken_over' as const };
      }
      logger.info({ job: EXPORT_RUN, exportJobId: jobId }, 'export: cancelled');
      return { status: 'cancelled' as const };
    }
    const now = clock.now();
    if (
      !(await repository.fail(
        jobId,
        EXPORT_MESSAGES.failedGeneric,
        now,
        new Date(now.getTime() + EXPORT_RETENTION_MS),
        claim,
      ))
    ) {
      // Not ours any more (taken over, cancelled, done): its error is no longer the job's.
      logger.info(
        { err: error, job: EXPORT_RUN, exportJobId: jobId, claim },
        'export: a run no longer owning its job stopped',
      );
      return { status: (await takenOver()) ? ('taken_over' as const) : ('cancelled' as const) };
    }
    logger.error({ err: error, job: EXPORT_RUN, exportJobId: jobId }, 'export: failed');
    return { status: 'failed' as const };
  } finally {
    clearInterval(keepalive);
  }
}

type BuildDeps = {
  repository: ExportRepository;
  readings: ReturnType<ReadingsFor>;
  storage: ExportStorage;
  progress: (fraction: number) => Promise<boolean>;
};

/** A ZIP export's run after its claim: the plan, the ZIP as a part file, committed (renamed). */
async function buildZip(
  job: ZipJobRow,
  claim: number,
  deps: BuildDeps & { clock: Clock },
  options: ExportRunOptions,
): Promise<{ key: string; size: number; rows: number }> {
  const { repository, readings, storage, clock } = deps;
  const jobId = job.id;
  const params = job.jobParams;
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
    device: {
      id: device.id,
      friendlyName: device.friendlyName,
      brand: device.brand,
      deviceType: device.deviceType,
    },
    // A participant deleted since the request has no data left to export.
    participants: params.participantIds
      .filter((id) => codes.has(id))
      .map((id) => ({ participantId: id, participantCode: codes.get(id)! })),
    metrics: params.metrics.map((key) => {
      const entry = catalog.find((metric) => metric.metricKey === key);
      return {
        metricKey: key,
        metricName: entry?.metricName ?? key,
        units: entry?.units ?? null,
        category: entry?.category ?? null,
        description: entry?.description ?? null,
      };
    }),
    softwareVersion: APP_VERSION,
    exportedAt: clock.now(),
  };

  const workDir = await storage.workDir(jobId, claim);
  const result = await writeExport(
    plan,
    {
      iterate: (query, iterateOptions) => readings.iterate(query, iterateOptions),
      csv: (query, labels, csvOptions) => readings.csv(query, labels, csvOptions),
      dayOffsets: (teamId, participantId, days) => readings.dayOffsets(teamId, participantId, days),
      pageSize: options.pageSize,
      zipLevel: options.zipLevel,
      progress: deps.progress,
    },
    workDir,
    storage.partPath(jobId, claim),
  );
  await storage.removeWork(jobId, claim);
  // The run's own final file: a run taken over meanwhile never replaces the taker's.
  const { key, size } = await storage.commit(jobId, claim);
  return { key, size, rows: result.totalRows };
}

/**
 * A FHIR Bulk Data export's run after its claim (issue 31): its NDJSON files in the run's work
 * directory, which becomes the finished directory in one rename, so a status or file request
 * never sees a half-written file.
 */
async function buildBulk(
  job: BulkJobRow,
  claim: number,
  deps: BuildDeps,
  options: ExportRunOptions,
): Promise<{ key: string; size: number; rows: number }> {
  const { repository, readings, storage } = deps;
  const params = job.jobParams;
  const participants = await repository.trialParticipants(job.teamId, job.trialId ?? 0);
  const workDir = await storage.workDir(job.id, claim);
  const written = await writeBulkExport(
    {
      teamId: job.teamId,
      trialId: job.trialId ?? 0,
      types: params.types,
      since: params.since ? new Date(params.since) : null,
      transactionTime: job.createdAt,
      participants,
    },
    {
      iterate: (query, iterateOptions) => readings.iterate(query, iterateOptions),
      pageSize: options.pageSize,
      resourcesPerFile: options.bulkResourcesPerFile,
      progress: deps.progress,
    },
    workDir,
  );
  const { key, size } = await storage.commitDirectory(job.id, claim);
  return { key, size, rows: written.resources };
}
