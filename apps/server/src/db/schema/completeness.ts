import { sql } from 'drizzle-orm';
import {
  check,
  date,
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
} from 'drizzle-orm/pg-core';
import { createdAt, updatedAt } from './columns';
import { participants } from './participants';
import { teams } from './teams';
import { trials } from './trials';
import { users } from './users';

/**
 * A trial's adherence thresholds (issue 20, decision 0050). No row = the defaults
 * (COMPLETENESS_DEFAULTS in @trialpulse/shared). Changed by Sys_Admin and Admin, audited.
 */
export const completenessThresholds = pgTable(
  'completeness_thresholds',
  {
    trialId: integer('trial_id').primaryKey(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    minWearHours: integer('min_wear_hours').notNull(),
    minCgmUsagePercent: integer('min_cgm_usage_percent').notNull(),
    /** 0: the protocol asks for no blood-pressure readings. */
    minBpReadingsPerDay: integer('min_bp_readings_per_day').notNull(),
    maxDaysWithoutSync: integer('max_days_without_sync').notNull(),
    updatedByUserId: integer('updated_by_user_id').references(() => users.id, {
      onDelete: 'set null',
    }),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('completeness_thresholds_trial_id_team_id_idx').on(t.trialId, t.teamId),
    index('completeness_thresholds_team_id_idx').on(t.teamId),
    index('completeness_thresholds_updated_by_user_id_idx').on(t.updatedByUserId),
    foreignKey({
      name: 'completeness_thresholds_trial_fk',
      columns: [t.trialId, t.teamId],
      foreignColumns: [trials.id, trials.teamId],
    }).onDelete('cascade'),
    check('completeness_thresholds_wear', sql`${t.minWearHours} BETWEEN 0 AND 24`),
    check('completeness_thresholds_cgm', sql`${t.minCgmUsagePercent} BETWEEN 0 AND 100`),
    check('completeness_thresholds_bp', sql`${t.minBpReadingsPerDay} BETWEEN 0 AND 24`),
    check('completeness_thresholds_sync', sql`${t.maxDaysWithoutSync} BETWEEN 1 AND 90`),
  ],
);

/** A staff user's opt-in to a trial's daily alert digest (off by default: no row). */
export const completenessDigestSubscriptions = pgTable(
  'completeness_digest_subscriptions',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    trialId: integer('trial_id').notNull(),
    teamId: integer('team_id').notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ name: 'completeness_digest_subscriptions_pkey', columns: [t.userId, t.trialId] }),
    index('completeness_digest_subscriptions_trial_id_team_id_idx').on(t.trialId, t.teamId),
    foreignKey({
      name: 'completeness_digest_subscriptions_trial_fk',
      columns: [t.trialId, t.teamId],
      foreignColumns: [trials.id, trials.teamId],
    }).onDelete('cascade'),
  ],
);

/**
 * The alert kinds a participant was last reported for: the digest lists only kinds that
 * are new since the previous run ("crossed"), so a participant who stays off is reported
 * once, and again after recovering and crossing anew.
 */
export const completenessAlertStates = pgTable(
  'completeness_alert_states',
  {
    participantId: integer('participant_id').primaryKey(),
    teamId: integer('team_id').notNull(),
    kinds: text('kinds')
      .array()
      .notNull()
      .default(sql`ARRAY[]::text[]`),
    updatedAt: updatedAt(),
  },
  (t) => [
    index('completeness_alert_states_participant_id_team_id_idx').on(t.participantId, t.teamId),
    foreignKey({
      name: 'completeness_alert_states_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
  ],
);

/** One row per digest day: a retried or second worker's run of the same day sends nothing. */
export const completenessDigestRuns = pgTable('completeness_digest_runs', {
  day: date('day', { mode: 'string' }).primaryKey(),
  mails: integer('mails').notNull(),
  createdAt: createdAt(),
});
