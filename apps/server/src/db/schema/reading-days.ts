import {
  bigint,
  date,
  doublePrecision,
  foreignKey,
  integer,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
import { deviceBrandEnum } from './devices';
import { participants } from './participants';

/**
 * Per participant, metric and local civil day: what `device_readings` holds of that day
 * (decision 0058). Derived data, owned by the sync module: the readings write path
 * recomputes the days each batch touches in its transaction, the retention purge the days it
 * empties, and migration 0011 filled it from the readings already stored. A reading counts
 * on the day of decision 0051 (instant, or end of a session, plus `utc_offset_minutes`),
 * brands together: wear minutes are distinct minutes whatever device measured them.
 */
export const deviceReadingDays = pgTable(
  'device_reading_days',
  {
    participantId: integer('participant_id').notNull(),
    teamId: integer('team_id').notNull(),
    metricKey: text('metric_key').notNull(),
    /** Local civil date (decision 0051). */
    day: date('day', { mode: 'string' }).notNull(),
    /** Readings counted on the day. */
    readings: integer('readings').notNull(),
    /** Distinct UTC minutes of `recorded_at` (wear minutes for heart rate). */
    minutes: integer('minutes').notNull(),
    /** Sum of `value` (null when every value is null: structured readings). */
    valueSum: doublePrecision('value_sum'),
    /** Earliest and latest `recorded_at` counted (the purge finds a dropped month's days by them). */
    firstAt: timestamptz('first_at').notNull(),
    lastAt: timestamptz('last_at').notNull(),
  },
  (t) => [
    primaryKey({
      name: 'device_reading_days_pkey',
      columns: [t.participantId, t.teamId, t.metricKey, t.day],
    }),
    foreignKey({
      name: 'device_reading_days_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
  ],
);

/**
 * Per participant, metric and brand: how many readings are stored, rows and chunk points
 * together (issue 29, decision 0257). Kept by statement-level triggers on
 * `device_readings` and `device_reading_chunks` in the writing transaction (migration
 * 0023), so every writer keeps it (sync, mirror, purge, chunk migration, dissolve, bulk
 * SQL); the purge's dropped partitions, which fire no trigger, subtract their counts
 * themselves. Read instead of counting a participant's readings (the overview, the
 * stored-readings table's total).
 */
export const deviceReadingTotals = pgTable(
  'device_reading_totals',
  {
    participantId: integer('participant_id').notNull(),
    teamId: integer('team_id').notNull(),
    metricKey: text('metric_key').notNull(),
    brand: deviceBrandEnum('brand').notNull(),
    readings: bigint('readings', { mode: 'number' }).notNull(),
    /**
     * Of them, how many are rows of `device_readings` (the rest are chunk points): the
     * overview probes the row partitions for a stream's first and last instants only when it
     * has rows, so a chunked stream's overview does not walk every month (migration 0025).
     */
    rowReadings: bigint('row_readings', { mode: 'number' }).notNull().default(0),
  },
  (t) => [
    primaryKey({
      name: 'device_reading_totals_pkey',
      columns: [t.participantId, t.teamId, t.metricKey, t.brand],
    }),
    foreignKey({
      name: 'device_reading_totals_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
  ],
);
