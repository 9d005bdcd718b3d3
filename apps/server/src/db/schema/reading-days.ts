import {
  date,
  doublePrecision,
  foreignKey,
  integer,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';
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
