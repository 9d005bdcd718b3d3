import { sql } from 'drizzle-orm';
import { bigint, check, index, integer, jsonb, pgEnum, pgTable, text } from 'drizzle-orm/pg-core';
import { createdAt, identityId, timestamptz, updatedAt } from './columns';
import { backendClients } from './backend-clients';
import { teams } from './teams';
import { trials } from './trials';
import { users } from './users';

export const exportStatusEnum = pgEnum('export_status', [
  'pending',
  'processing',
  'completed',
  'failed',
]);
export type ExportStatus = (typeof exportStatusEnum.enumValues)[number];

/** The export request as stored (device-data spec §3: job_params). */
export type ExportJobParams = {
  fileName: string;
  startDate: string;
  endDate: string;
  participantIds: number[];
  metrics: string[];
  deviceId: number;
  exportMode: 'separate-tabs' | 'single-tab';
  format?: 'csv' | 'xlsx' | 'parquet';
  /** Optional files beside the data (decision 0046). */
  extras?: ('openmhealth' | 'fhir' | 'adherence')[];
};

/**
 * A FHIR Bulk Data `$export` of a trial (issue 31) as stored: what the kick-off asked for.
 * `transactionTime` is the job row's `created_at` (the database's clock, like `synced_at`).
 */
export type BulkExportParams = {
  kind: 'fhir-bulk';
  /** The resource types asked for (`_type`, or every type served). */
  types: ('Group' | 'Patient' | 'Device' | 'Observation')[];
  /** `_since` as an ISO instant: readings stored or changed after it; null: all. */
  since: string | null;
  /** The kick-off request URL (the manifest's `request`). */
  request: string;
};

/**
 * Batch export jobs, processed by a worker, never inside the request. The file is written
 * to a temporary path and renamed before the row becomes `completed`; files expire after
 * 7 days (`expires_at`).
 */
export const exportJobs = pgTable(
  'export_jobs',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    trialId: integer('trial_id').references(() => trials.id, { onDelete: 'set null' }),
    status: exportStatusEnum('status').notNull().default('pending'),
    /** A ZIP export's request (by a user), or a Bulk Data kick-off's (by a backend client). */
    jobParams: jsonb('job_params').$type<ExportJobParams | BulkExportParams>().notNull(),
    /** 0–100 while processing; the worker also uses its update as a heartbeat and cancel check. */
    progress: integer('progress').notNull().default(0),
    fileSize: bigint('file_size', { mode: 'number' }),
    filePath: text('file_path'),
    errorMessage: text('error_message'),
    /** The user who asked for a ZIP export; null for a Bulk Data export. */
    createdBy: integer('created_by').references(() => users.id, { onDelete: 'restrict' }),
    /** The backend client (its public client_id) that kicked off a Bulk Data export. */
    backendClientId: text('backend_client_id').references(() => backendClients.clientId, {
      onDelete: 'restrict',
    }),
    createdAt: createdAt(),
    startedAt: timestamptz('started_at'),
    /**
     * The current run's claim: each run that claims the job adds one and writes the row (and
     * its files) only while it still carries that number, so a run that was taken over
     * changes nothing when it comes back (decision 0121).
     */
    claim: integer('claim').notNull().default(0),
    completedAt: timestamptz('completed_at'),
    expiresAt: timestamptz('expires_at'),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('export_jobs_team_id_created_at_idx').on(t.teamId, t.createdAt),
    index('export_jobs_created_by_created_at_idx').on(t.createdBy, t.createdAt),
    index('export_jobs_trial_id_idx').on(t.trialId),
    index('export_jobs_expires_at_idx').on(t.expiresAt),
    index('export_jobs_backend_client_id_idx').on(t.backendClientId),
    // Every job has exactly one requester: a user (ZIP) or a backend client (Bulk Data).
    check(
      'export_jobs_one_requester',
      sql`(${t.createdBy} IS NULL) <> (${t.backendClientId} IS NULL)`,
    ),
    check('export_jobs_file_size_non_negative', sql`${t.fileSize} IS NULL OR ${t.fileSize} >= 0`),
    check('export_jobs_progress_range', sql`${t.progress} BETWEEN 0 AND 100`),
  ],
);
