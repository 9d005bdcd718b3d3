import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import { createdAt, oneOf, timestamptz, updatedAt } from './columns';
import {
  DEVICE_UPSTREAMS,
  READING_UPSTREAMS,
  deviceBrandEnum,
  participantDevices,
} from './devices';
import { participants } from './participants';
import { teams } from './teams';

/**
 * Stored device data (decision 0035). One row per reading, keyed (participant, metric,
 * recorded instant, brand), partitioned by month on `recorded_at` — the migration declares
 * `PARTITION BY RANGE (recorded_at)`, which drizzle cannot express; partitions are named
 * `device_readings_pYYYYMM` and created ahead by the sync's partition job and on demand by
 * the write path. Values are in the metric catalog's units. Daily metrics (steps, resting
 * heart rate, ...) are stored at the civil date's 00:00 UTC with `utc_offset_minutes` null;
 * samples and sessions at their physical instant with the participant's offset then.
 *
 * Provenance of every row: the upstream that delivered it, the provider's data source or
 * device id, and the sync run that last wrote it. `sync_run_id` has no foreign key on
 * purpose: runs are kept as long as the connection, and a per-row check would slow ingest.
 */
export const deviceReadings = pgTable(
  'device_readings',
  {
    participantId: integer('participant_id').notNull(),
    teamId: integer('team_id').notNull(),
    metricKey: text('metric_key').notNull(),
    recordedAt: timestamptz('recorded_at').notNull(),
    /** Brand whose device measured it: a Fitbit and an Omron weight at one instant are two readings. */
    brand: deviceBrandEnum('brand').notNull(),
    /** End of the interval a value covers (sleep session), else null. */
    endAt: timestamptz('end_at'),
    /** The participant's UTC offset at the reading, where the provider says it. */
    utcOffsetMinutes: smallint('utc_offset_minutes'),
    value: doublePrecision('value'),
    /** Structured readings (sleep stages, Dexcom events) and extra fields of a value. */
    valueJson: jsonb('value_json'),
    /** The upstream that delivered it; `demo` for a reading the demo seeded (decision 0186). */
    upstream: text('upstream', { enum: READING_UPSTREAMS }).notNull(),
    /** The provider's data source or device id (Google dataSource device, Omron device model, Dexcom transmitter). */
    dataSource: text('data_source'),
    syncRunId: bigint('sync_run_id', { mode: 'number' }),
    /** When the row was last inserted or changed by a sync. */
    syncedAt: timestamptz('synced_at').notNull().defaultNow(),
  },
  (t) => [
    // team_id second: the key also serves the (participant_id, team_id) foreign key, and
    // every read and purge goes through a participant, so no index leads with team_id.
    primaryKey({
      name: 'device_readings_pkey',
      columns: [t.participantId, t.teamId, t.metricKey, t.recordedAt, t.brand],
    }),
    foreignKey({
      name: 'device_readings_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
    // Partition pruning and BRIN-sized retention scans on the time column.
    index('device_readings_recorded_at_brin').using('brin', t.recordedAt),
    check('device_readings_upstream_known', oneOf(t.upstream, READING_UPSTREAMS)),
    check('device_readings_has_value', sql`${t.value} IS NOT NULL OR ${t.valueJson} IS NOT NULL`),
  ],
);

export const SYNC_RUN_KINDS = ['backfill', 'incremental', 'webhook', 'manual'] as const;
export type SyncRunKind = (typeof SYNC_RUN_KINDS)[number];

/**
 * `partial`: the run was time-boxed and left work for the next one (its checkpoint is in
 * `sync_cursors`); `backed_off`: the provider's quota or 403s stopped it.
 */
export const SYNC_RUN_OUTCOMES = [
  'running',
  'succeeded',
  'partial',
  'backed_off',
  'failed',
  'needs_reconsent',
] as const;
export type SyncRunOutcome = (typeof SYNC_RUN_OUTCOMES)[number];

/** One record per sync run of one connection. */
export const syncRuns = pgTable(
  'sync_runs',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    participantDeviceId: integer('participant_device_id')
      .notNull()
      .references(() => participantDevices.id, { onDelete: 'cascade' }),
    upstream: text('upstream', { enum: DEVICE_UPSTREAMS }).notNull(),
    kind: text('kind', { enum: SYNC_RUN_KINDS }).notNull(),
    jobId: text('job_id'),
    metrics: text('metrics')
      .array()
      .notNull()
      .default(sql`ARRAY[]::text[]`),
    /** The windows fetched: [{metric, from, to}]. */
    windows: jsonb('windows')
      .notNull()
      .default(sql`'[]'::jsonb`),
    providerCalls: integer('provider_calls').notNull().default(0),
    rowsInserted: integer('rows_inserted').notNull().default(0),
    rowsUpdated: integer('rows_updated').notNull().default(0),
    /** Stored readings a fetched window no longer held, deleted by its mirror (decision 0112). */
    rowsDeleted: integer('rows_deleted').notNull().default(0),
    startedAt: timestamptz('started_at').notNull(),
    finishedAt: timestamptz('finished_at'),
    outcome: text('outcome', { enum: SYNC_RUN_OUTCOMES }).notNull().default('running'),
    /** One of the spec's device error types (rate_limit, auth_error, ...) when it failed. */
    errorType: text('error_type'),
  },
  (t) => [
    index('sync_runs_team_id_idx').on(t.teamId, t.startedAt),
    index('sync_runs_participant_device_idx').on(t.participantDeviceId, t.startedAt),
    check('sync_runs_kind_known', oneOf(t.kind, SYNC_RUN_KINDS)),
    check('sync_runs_outcome_known', oneOf(t.outcome, SYNC_RUN_OUTCOMES)),
    check('sync_runs_upstream_known', oneOf(t.upstream, DEVICE_UPSTREAMS)),
  ],
);

/**
 * The checkpoint per (connection, metric): everything in [backfill_from, synced_until) has
 * been fetched at least once. Incremental runs re-read a look-back before synced_until.
 */
export const syncCursors = pgTable(
  'sync_cursors',
  {
    participantDeviceId: integer('participant_device_id')
      .notNull()
      .references(() => participantDevices.id, { onDelete: 'cascade' }),
    metricKey: text('metric_key').notNull(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    backfillFrom: timestamptz('backfill_from').notNull(),
    syncedUntil: timestamptz('synced_until'),
    lastRunId: bigint('last_run_id', { mode: 'number' }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'sync_cursors_pkey', columns: [t.participantDeviceId, t.metricKey] }),
    index('sync_cursors_team_id_idx').on(t.teamId),
  ],
);

/** Sync state per connection: back-off, consecutive 403s, last outcome. */
export const syncStates = pgTable(
  'sync_states',
  {
    participantDeviceId: integer('participant_device_id')
      .primaryKey()
      .references(() => participantDevices.id, { onDelete: 'cascade' }),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    backoffUntil: timestamptz('backoff_until'),
    backoffReason: text('backoff_reason'),
    consecutiveForbidden: integer('consecutive_forbidden').notNull().default(0),
    lastRunAt: timestamptz('last_run_at'),
    lastSuccessAt: timestamptz('last_success_at'),
    lastOutcome: text('last_outcome', { enum: SYNC_RUN_OUTCOMES }),
    lastErrorType: text('last_error_type'),
    /**
     * The lease of the worker syncing the connection now (its job id) and until when it
     * holds it: one worker per connection across processes; a killed worker's lease runs
     * out and the next job resumes from the checkpoint.
     */
    leaseOwner: text('lease_owner'),
    leaseUntil: timestamptz('lease_until'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('sync_states_team_id_idx').on(t.teamId),
    check(
      'sync_states_last_outcome_known',
      sql`${t.lastOutcome} IS NULL OR ${oneOf(t.lastOutcome, SYNC_RUN_OUTCOMES)}`,
    ),
  ],
);

/**
 * Provider call budgets shared by every worker process: one row per scope
 * (`connection:{id}` or `app:{upstream}`), a fixed window and a limit. A call is spent
 * with one conditional UPDATE, so two processes never exceed the limit together.
 */
export const syncCallBudgets = pgTable(
  'sync_call_budgets',
  {
    scope: text('scope').primaryKey(),
    windowStartedAt: timestamptz('window_started_at').notNull(),
    windowSeconds: integer('window_seconds').notNull(),
    callLimit: integer('call_limit').notNull(),
    callsUsed: integer('calls_used').notNull().default(0),
    /** No call before this instant (a 429's Retry-After / Fitbit-Rate-Limit-Reset). */
    blockedUntil: timestamptz('blocked_until'),
    updatedAt: updatedAt(),
  },
  (t) => [
    check('sync_call_budgets_limit_positive', sql`${t.callLimit} > 0 AND ${t.windowSeconds} > 0`),
    check(
      'sync_call_budgets_used_within_limit',
      sql`${t.callsUsed} >= 0 AND ${t.callsUsed} <= ${t.callLimit}`,
    ),
  ],
);
