import { and, asc, count, desc, eq, inArray, isNotNull, lt, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  exportJobs,
  globalDeviceCatalog,
  metricCatalog,
  participantDevices,
  participants,
  teamSupportedDevices,
  trials,
  type BulkExportParams,
  type DeviceBrand,
  type ExportJobParams,
} from '../../db/schema';

export type ExportJobRow = typeof exportJobs.$inferSelect;
/** A ZIP export's job (asked for by a user on the Data Export page). */
export type ZipJobRow = ExportJobRow & { jobParams: ExportJobParams };
/** A FHIR Bulk Data export's job (kicked off by a backend client). */
export type BulkJobRow = ExportJobRow & { jobParams: BulkExportParams };

export function isBulkJob(row: ExportJobRow): row is BulkJobRow {
  return 'kind' in row.jobParams && row.jobParams.kind === 'fhir-bulk';
}

/**
 * The only code of the export module that touches tables. Every read takes the team id
 * (and, for jobs, the creator), so another team's rows are never found.
 */
export function createExportRepository(db: Db) {
  const deviceColumns = {
    id: teamSupportedDevices.id,
    friendlyName: globalDeviceCatalog.deviceName,
    brand: globalDeviceCatalog.manufacturer,
    deviceType: globalDeviceCatalog.deviceType,
    catalogId: globalDeviceCatalog.id,
  };

  return {
    db,

    /** The trials of the team among `trialIds` (the ones the access module says the caller sees). */
    async listTrials(teamId: number, trialIds: readonly number[]) {
      if (trialIds.length === 0) return [];
      return db
        .select({
          trialId: trials.id,
          trialName: trials.trialName,
          trialNumber: trials.trialNumber,
        })
        .from(trials)
        .where(and(eq(trials.teamId, teamId), inArray(trials.id, [...trialIds])))
        .orderBy(asc(trials.trialName), asc(trials.id));
    },

    /** Every trial of the team, by id (Bulk Data's Group search: which trials a client may export). */
    teamTrials(teamId: number) {
      return db
        .select({ trialId: trials.id, trialName: trials.trialName })
        .from(trials)
        .where(eq(trials.teamId, teamId))
        .orderBy(asc(trials.id));
    },

    /** The team's active supported devices (export device: id, friendlyName). */
    listDevices(teamId: number) {
      return db
        .select(deviceColumns)
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(eq(teamSupportedDevices.teamId, teamId), eq(teamSupportedDevices.isActive, true)),
        )
        .orderBy(asc(globalDeviceCatalog.deviceName));
    },

    async findDevice(teamId: number, deviceId: number) {
      const rows = await db
        .select(deviceColumns)
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(teamSupportedDevices.id, deviceId),
            eq(teamSupportedDevices.teamId, teamId),
            eq(teamSupportedDevices.isActive, true),
          ),
        );
      return rows[0];
    },

    /**
     * The trial's participants in code order, each with whether it has (or had) a connection
     * to a device of the brand; the service adds those with stored readings of it (the
     * readings service's), decision 0045: a revoked connection keeps its data.
     */
    listTrialParticipants(teamId: number, trialId: number, brand: DeviceBrand) {
      return db
        .select({
          participantId: participants.id,
          participantCode: participants.participantCode,
          connected: sql<boolean>`EXISTS (SELECT 1 FROM ${participantDevices} pd JOIN ${globalDeviceCatalog} gdc ON gdc.id = pd.global_device_catalog_id
                 WHERE pd.participant_id = ${participants}.id AND pd.team_id = ${teamId} AND gdc.manufacturer = ${brand})`,
        })
        .from(participants)
        .where(and(eq(participants.teamId, teamId), eq(participants.trialId, trialId)))
        .orderBy(asc(participants.participantCode));
    },

    /** The metric catalog of a device type (export metric: metric_key, metric_name, category). */
    listMetrics(deviceType: string) {
      return db
        .select({
          metricKey: metricCatalog.metricKey,
          metricName: metricCatalog.metricName,
          category: metricCatalog.category,
          units: metricCatalog.units,
          description: metricCatalog.description,
        })
        .from(metricCatalog)
        .where(and(eq(metricCatalog.deviceType, deviceType), eq(metricCatalog.available, true)))
        .orderBy(asc(metricCatalog.metricName));
    },

    async participantCodes(teamId: number, participantIds: readonly number[]) {
      if (participantIds.length === 0) return new Map<number, string>();
      const rows = await db
        .select({ id: participants.id, code: participants.participantCode })
        .from(participants)
        .where(and(eq(participants.teamId, teamId), inArray(participants.id, [...participantIds])));
      return new Map(rows.map((row) => [row.id, row.code]));
    },

    /** Records a ZIP export: pending. `executor`: the transaction that also writes its audit row. */
    async insertJob(
      values: { teamId: number; trialId: number; createdBy: number; jobParams: ExportJobParams },
      executor: DbOrTx = db,
    ) {
      const [row] = await executor.insert(exportJobs).values(values).returning();
      return row!;
    },

    /** The user's own jobs in the team (ZIP exports: a user asked), newest first, and how many there are. */
    async listJobs(teamId: number, userId: number, limit: number) {
      const scope = and(eq(exportJobs.teamId, teamId), eq(exportJobs.createdBy, userId));
      const [rows, [total]] = await Promise.all([
        db
          .select()
          .from(exportJobs)
          .where(scope)
          .orderBy(desc(exportJobs.createdAt), desc(exportJobs.id))
          .limit(limit),
        db.select({ n: count() }).from(exportJobs).where(scope),
      ]);
      return { rows: rows as ZipJobRow[], total: total?.n ?? 0 };
    },

    /** The user's own job (a ZIP export: a user asked for it). */
    async findJob(teamId: number, userId: number, jobId: number): Promise<ZipJobRow | undefined> {
      const rows = await db
        .select()
        .from(exportJobs)
        .where(
          and(
            eq(exportJobs.id, jobId),
            eq(exportJobs.teamId, teamId),
            eq(exportJobs.createdBy, userId),
          ),
        );
      return rows[0] as ZipJobRow | undefined;
    },

    /** Records a Bulk Data export kicked off by a backend client: pending, like a ZIP export's. */
    async insertBulkJob(
      values: {
        teamId: number;
        trialId: number;
        backendClientId: string;
        jobParams: BulkExportParams;
      },
      executor: DbOrTx = db,
    ): Promise<BulkJobRow> {
      const [row] = await executor.insert(exportJobs).values(values).returning();
      return row as BulkJobRow;
    },

    /** How many of the backend client's exports are pending or processing. */
    async unfinishedBulkJobs(backendClientId: string): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(exportJobs)
        .where(
          and(
            eq(exportJobs.backendClientId, backendClientId),
            inArray(exportJobs.status, ['pending', 'processing']),
          ),
        );
      return row?.n ?? 0;
    },

    /** A Bulk Data export of the team (any of its backend clients kicked it off). */
    async findBulkJob(teamId: number, jobId: number): Promise<BulkJobRow | undefined> {
      const rows = await db
        .select()
        .from(exportJobs)
        .where(
          and(
            eq(exportJobs.id, jobId),
            eq(exportJobs.teamId, teamId),
            isNotNull(exportJobs.backendClientId),
          ),
        );
      const row = rows[0];
      return row && isBulkJob(row) ? row : undefined;
    },

    /** Every participant of the trial, in code order (a Bulk Data export's Group). */
    trialParticipants(teamId: number, trialId: number) {
      return db
        .select({ participantId: participants.id, participantCode: participants.participantCode })
        .from(participants)
        .where(and(eq(participants.teamId, teamId), eq(participants.trialId, trialId)))
        .orderBy(asc(participants.participantCode), asc(participants.id));
    },

    async jobById(jobId: number) {
      const rows = await db.select().from(exportJobs).where(eq(exportJobs.id, jobId));
      return rows[0];
    },

    async deleteJob(jobId: number) {
      const rows = await db.delete(exportJobs).where(eq(exportJobs.id, jobId)).returning();
      return rows[0];
    },

    /**
     * Claims a job for a run: pending (first run), or processing without a heartbeat since
     * `silentSince` (a retry after its worker died), becomes processing at 0 % with a new
     * claim number (the row's `claim`), which the run passes to every later write. Undefined
     * when the job was cancelled, is done, or another live worker still runs it.
     */
    async claim(jobId: number, now: Date, silentSince: Date) {
      const rows = await db
        .update(exportJobs)
        .set({
          status: 'processing',
          progress: 0,
          startedAt: now,
          updatedAt: now,
          errorMessage: null,
          claim: sql`${exportJobs.claim} + 1`,
        })
        .where(
          and(
            eq(exportJobs.id, jobId),
            or(
              eq(exportJobs.status, 'pending'),
              and(eq(exportJobs.status, 'processing'), lt(exportJobs.updatedAt, silentSince)),
            ),
          ),
        )
        .returning();
      return rows[0];
    },

    /**
     * Progress and heartbeat in one, by the run holding `claim`: false when the job was
     * cancelled (deleted) meanwhile, or another run took it over.
     */
    async heartbeat(jobId: number, claim: number, progress: number, now: Date): Promise<boolean> {
      const rows = await db
        .update(exportJobs)
        .set({ progress, updatedAt: now })
        .where(
          and(
            eq(exportJobs.id, jobId),
            eq(exportJobs.claim, claim),
            eq(exportJobs.status, 'processing'),
          ),
        )
        .returning({ id: exportJobs.id });
      return rows.length > 0;
    },

    /** The run holding `claim` completes the job: false when cancelled or taken over meanwhile. */
    async complete(
      jobId: number,
      claim: number,
      values: { filePath: string; fileSize: number; now: Date; expiresAt: Date },
    ) {
      const rows = await db
        .update(exportJobs)
        .set({
          status: 'completed',
          progress: 100,
          filePath: values.filePath,
          fileSize: values.fileSize,
          completedAt: values.now,
          expiresAt: values.expiresAt,
          updatedAt: values.now,
        })
        .where(
          and(
            eq(exportJobs.id, jobId),
            eq(exportJobs.claim, claim),
            eq(exportJobs.status, 'processing'),
          ),
        )
        .returning({ id: exportJobs.id });
      return rows.length > 0;
    },

    /**
     * Fails a job still pending or processing: by the run holding `claim` (false when it was
     * taken over), or by the sweep whatever its claim (`claim` undefined).
     */
    async fail(jobId: number, message: string, now: Date, expiresAt: Date, claim?: number) {
      const rows = await db
        .update(exportJobs)
        .set({
          status: 'failed',
          errorMessage: message,
          updatedAt: now,
          completedAt: now,
          expiresAt,
          filePath: null,
          fileSize: null,
        })
        .where(
          and(
            eq(exportJobs.id, jobId),
            inArray(exportJobs.status, ['pending', 'processing']),
            claim === undefined ? undefined : eq(exportJobs.claim, claim),
          ),
        )
        .returning({ id: exportJobs.id });
      return rows.length > 0;
    },

    /** Completed or failed jobs past their expiry (failed ones keep their row as long as a file would). */
    expiredJobs(now: Date) {
      return db
        .select({
          id: exportJobs.id,
          teamId: exportJobs.teamId,
          filePath: exportJobs.filePath,
          status: exportJobs.status,
        })
        .from(exportJobs)
        .where(
          and(inArray(exportJobs.status, ['completed', 'failed']), lt(exportJobs.expiresAt, now)),
        );
    },

    /** Processing jobs whose worker has not reported since `before` (it died and retries ran out). */
    staleJobs(before: Date) {
      return db
        .select({ id: exportJobs.id })
        .from(exportJobs)
        .where(and(eq(exportJobs.status, 'processing'), lt(exportJobs.updatedAt, before)));
    },

    /**
     * Pending jobs nobody claimed since `before`: their run was lost before its claim (the
     * database went away as it started, and pg-boss could not record the failure either, so
     * it waits for the run queue's expiry). A live run claims within moments of starting.
     */
    unclaimedJobs(before: Date) {
      return db
        .select({ id: exportJobs.id })
        .from(exportJobs)
        .where(and(eq(exportJobs.status, 'pending'), lt(exportJobs.updatedAt, before)));
    },

    /** The status and current claim of the jobs among `ids` that still exist. */
    async existingJobIds(ids: readonly number[]) {
      if (ids.length === 0) return new Map<number, { status: string; claim: number }>();
      const rows = await db
        .select({ id: exportJobs.id, status: exportJobs.status, claim: exportJobs.claim })
        .from(exportJobs)
        .where(inArray(exportJobs.id, [...ids]));
      return new Map(rows.map((row) => [row.id, { status: row.status, claim: row.claim }]));
    },
  };
}

export type ExportRepository = ReturnType<typeof createExportRepository>;
