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
import type { JobQueue } from '../../jobs/queue';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { isDbId } from '../../lib/db-ids';
import type { Meta } from '../../lib/request-meta';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { AccessService } from '../access/access.service';
import type { ExportStorage } from './export-storage';
import type { ExportJobRow, ExportRepository } from './export.repository';

/** The pg-boss queue that builds export files. */
export const EXPORT_RUN = 'export.run';
export const DAY_MS = 24 * 60 * 60 * 1000;
/** How long a finished (or failed) export is kept (§9: 7 days). */
export const EXPORT_RETENTION_MS = LIMITS.exportFileRetentionDays * DAY_MS;

const ACTION = 'export.create';
const jobNotFound = () => AppError.notFound(EXPORT_MESSAGES.jobNotFound);

export function presentJob(row: ExportJobRow): ExportJob {
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
}) {
  const { repository, access, storage, queue, clock } = deps;
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
      return rows.map(({ id, friendlyName, brand, deviceType }) => ({ id, friendlyName, brand, deviceType }));
    },

    async participants(auth: AuthContext, trialId: number, deviceId: number): Promise<ExportParticipant[]> {
      const { teamId } = await access.requireTrial(auth, trialId, ACTION);
      const found = await device(teamId, deviceId);
      return repository.listParticipants(teamId, trialId, found.brand);
    },

    async metrics(auth: AuthContext, deviceId: number): Promise<ExportMetric[]> {
      const teamId = requireExportTeam(auth);
      const found = await device(teamId, deviceId);
      if (!found.deviceType) return [];
      const rows = await repository.listMetrics(found.deviceType);
      return rows.map((row) => ({ metric_key: row.metricKey, metric_name: row.metricName, category: row.category, units: row.units }));
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
      const allowedParticipants = new Set((await repository.listParticipants(teamId, request.trialId, found.brand)).map((p) => p.participantId));
      if (request.participantIds.some((id) => !allowedParticipants.has(id))) {
        throw AppError.badRequest(EXPORT_MESSAGES.unknownParticipants, [{ field: 'participantIds', message: EXPORT_MESSAGES.unknownParticipants }]);
      }
      const allowedMetrics = new Set(found.deviceType ? (await repository.listMetrics(found.deviceType)).map((m) => m.metricKey) : []);
      if (request.metrics.some((key) => !allowedMetrics.has(key))) {
        throw AppError.badRequest(EXPORT_MESSAGES.unknownMetrics, [{ field: 'metrics', message: EXPORT_MESSAGES.unknownMetrics }]);
      }
      const job = await repository.insertJob({
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
      });
      await recordAudit(repository.db, {
        action: 'export.create',
        entityType: 'export_job',
        entityId: job.id,
        actorUserId: auth.userId,
        teamId,
        requestId: meta.requestId,
        after: { trialId: request.trialId, deviceId: request.deviceId, participantIds: request.participantIds, metrics: request.metrics, startDate: request.startDate, endDate: request.endDate, exportMode: request.exportMode, format: request.format, extras: request.extras },
      });
      try {
        // The job row exists before the queue entry: a worker never sees an unknown id.
        await queue.send(EXPORT_RUN, { jobId: job.id }, { singletonKey: String(job.id) });
      } catch (error) {
        await repository.fail(job.id, EXPORT_MESSAGES.createFailed, clock.now(), new Date(clock.now().getTime() + EXPORT_RETENTION_MS));
        throw new AppError(503, EXPORT_MESSAGES.createFailed, { displayToUser: true, reason: 'EXPORT_QUEUE_UNAVAILABLE', cause: error });
      }
      return { success: true as const, message: EXPORT_MESSAGES.created, jobId: job.id };
    },

    /**
     * The finished ZIP of the caller's own completed, unexpired job; audited with who
     * downloaded which job.
     */
    async download(auth: AuthContext, jobId: number, meta: Meta): Promise<{ stream: Readable; size: number; fileName: string }> {
      const { teamId, job } = await ownJob(auth, jobId);
      if (job.status !== 'completed' || !job.filePath) throw AppError.conflict(EXPORT_MESSAGES.notReady);
      if (job.expiresAt && job.expiresAt <= clock.now()) throw new AppError(410, EXPORT_MESSAGES.expired, { reason: 'EXPORT_EXPIRED' });
      const file = await storage.open(job.filePath);
      if (!file) throw new AppError(410, EXPORT_MESSAGES.expired, { reason: 'EXPORT_EXPIRED' });
      await recordAudit(repository.db, {
        action: 'export.download',
        entityType: 'export_job',
        entityId: job.id,
        actorUserId: auth.userId,
        teamId,
        requestId: meta.requestId,
        after: { fileSize: file.size, participantIds: job.jobParams.participantIds, metrics: job.jobParams.metrics },
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
      return { success: true as const, message: cancelled ? EXPORT_MESSAGES.cancelled : EXPORT_MESSAGES.deleted };
    },
  };
}

export type ExportService = ReturnType<typeof createExportService>;
