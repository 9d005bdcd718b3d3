import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  doublePrecision,
  foreignKey,
  integer,
  jsonb,
  pgTable,
  pgView,
  primaryKey,
  smallint,
  text,
} from 'drizzle-orm/pg-core';
import { oneOf, timestamptz } from './columns';
import { READING_UPSTREAMS, deviceBrandEnum } from './devices';
import { participants } from './participants';

/**
 * High-rate streams stored compactly (issue 29, decision 0220): one row per participant ×
 * team × metric × brand × period (a UTC hour for heart rate) holding the period's points as
 * arrays: `steps_ms` (the first point's milliseconds since `period_start`, then each point's
 * since the one before), `value`, `utc_offset_minutes` and `value_json` (an element null where the
 * provider gave none). Only points a sync stored, with one upstream and data source, are
 * chunked; provenance is the chunk's. A key (participant, team, metric, instant, brand) is
 * in `device_readings` or in a chunk, never both. Readers go through `stored_readings`.
 * TOAST compresses the arrays with the default pglz (no `SET COMPRESSION`).
 */
export const deviceReadingChunks = pgTable(
  'device_reading_chunks',
  {
    participantId: integer('participant_id').notNull(),
    teamId: integer('team_id').notNull(),
    metricKey: text('metric_key').notNull(),
    /** The UTC period's first instant; a period is at most a day (`CHUNK_PERIOD_MAX_MS`). */
    periodStart: timestamptz('period_start').notNull(),
    brand: deviceBrandEnum('brand').notNull(),
    /** The instant of the chunk's last point: readers skip chunks that end before their window. */
    lastAt: timestamptz('last_at').notNull(),
    stepsMs: integer('steps_ms').array().notNull(),
    value: doublePrecision('value').array().notNull(),
    utcOffsetMinutes: smallint('utc_offset_minutes').array().notNull(),
    /**
     * Each point's JSON (a CGM reading's trend and status; an element null for a point
     * without), or null when no point has any, as for heart rate (decision 0270).
     */
    valueJson: jsonb('value_json').array(),
    upstream: text('upstream', { enum: READING_UPSTREAMS }).notNull(),
    dataSource: text('data_source'),
    /** The sync run that last changed the chunk (a chunk only holds points a sync stored). */
    syncRunId: bigint('sync_run_id', { mode: 'number' }).notNull(),
    syncedAt: timestamptz('synced_at').notNull().defaultNow(),
  },
  (t) => [
    primaryKey({
      name: 'device_reading_chunks_pkey',
      columns: [t.participantId, t.teamId, t.metricKey, t.periodStart, t.brand],
    }),
    foreignKey({
      name: 'device_reading_chunks_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
    check('device_reading_chunks_upstream_known', oneOf(t.upstream, READING_UPSTREAMS)),
    check(
      'device_reading_chunks_arrays',
      sql`cardinality(${t.stepsMs}) > 0 and cardinality(${t.value}) = cardinality(${t.stepsMs}) and cardinality(${t.utcOffsetMinutes}) = cardinality(${t.stepsMs})`,
    ),
    check(
      'device_reading_chunks_value_json',
      sql`${t.valueJson} is null or cardinality(${t.valueJson}) = cardinality(${t.stepsMs})`,
    ),
  ],
);

/**
 * Every stored reading: the rows of `device_readings` and the unnested points of
 * `device_reading_chunks` (their `end_at` null), in the rows' columns. The
 * one relation the readers read (decision 0255); created by migration 0020 (drizzle cannot
 * declare a UNION ALL view; 0026 adds the points' `value_json`). `chunk_from` / `chunk_to` are the chunk's period start and last
 * point (a row's: its `recorded_at`): a reader of a window bounds them too
 * (`storedReadingsWithin`), so only the chunks of the window are unnested and the rows'
 * partitions are still pruned.
 */
export const storedReadings = pgView('stored_readings', {
  participantId: integer('participant_id').notNull(),
  teamId: integer('team_id').notNull(),
  metricKey: text('metric_key').notNull(),
  recordedAt: timestamptz('recorded_at').notNull(),
  brand: deviceBrandEnum('brand').notNull(),
  endAt: timestamptz('end_at'),
  utcOffsetMinutes: smallint('utc_offset_minutes'),
  value: doublePrecision('value'),
  valueJson: jsonb('value_json'),
  upstream: text('upstream', { enum: READING_UPSTREAMS }).notNull(),
  dataSource: text('data_source'),
  syncRunId: bigint('sync_run_id', { mode: 'number' }),
  syncedAt: timestamptz('synced_at').notNull(),
  chunkFrom: timestamptz('chunk_from').notNull(),
  chunkTo: timestamptz('chunk_to').notNull(),
}).existing();
