import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  numeric,
  pgTable,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, identityId, timestamptz, updatedAt } from './columns';

/** Fields a team may hide from its staff (access spec §3: "per-team hidden-field list"). */
export const HIDEABLE_FIELDS = ['email', 'notes'] as const;
export type HideableField = (typeof HIDEABLE_FIELDS)[number];

/**
 * A team (tenant). Column names are the spec's full team record; the id is `team_id` in
 * responses. Teams are deactivated (`is_active`), never deleted, so tenant rows reference
 * them with ON DELETE RESTRICT.
 */
export const teams = pgTable(
  'teams',
  {
    id: identityId(),
    teamName: text('team_name').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    subscriptionStarts: timestamptz('subscription_starts'),
    subscriptionEnds: timestamptz('subscription_ends'),
    subscriptionType: text('subscription_type'),
    maxUsers: integer('max_users'),
    actualNumOfUsers: integer('actual_num_of_users').notNull().default(0),
    maxTrials: integer('max_trials'),
    actualNumOfTrials: integer('actual_num_of_trials').notNull().default(0),
    maxParticipants: integer('max_participants'),
    actualNumOfParticipants: integer('actual_num_of_participants').notNull().default(0),
    teamAdminEmail: text('team_admin_email'),
    teamAdminPhone: text('team_admin_phone'),
    organization: text('organization'),
    notes: text('notes'),
    monthlyRatePerParticipant: numeric('monthly_rate_per_participant', { precision: 10, scale: 2 }),
    /** Null: "No retention period set yet." */
    retentionDays: integer('retention_days'),
    storageLocation: text('storage_location'),
    /** Participant fields hidden for this team; the spec's default hides email and notes. */
    hiddenFields: text('hidden_fields')
      .array()
      .notNull()
      .default(sql`ARRAY['email', 'notes']::text[]`),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('teams_team_name_lower_unique').on(sql`lower(${t.teamName})`),
    index('teams_is_active_idx').on(t.isActive),
    check(
      'teams_counts_non_negative',
      sql`${t.actualNumOfUsers} >= 0 AND ${t.actualNumOfTrials} >= 0 AND ${t.actualNumOfParticipants} >= 0`,
    ),
    check(
      'teams_limits_non_negative',
      sql`coalesce(${t.maxUsers}, 0) >= 0 AND coalesce(${t.maxTrials}, 0) >= 0 AND coalesce(${t.maxParticipants}, 0) >= 0`,
    ),
    check('teams_retention_days_min', sql`${t.retentionDays} IS NULL OR ${t.retentionDays} >= 1`),
    check(
      'teams_subscription_order',
      sql`${t.subscriptionStarts} IS NULL OR ${t.subscriptionEnds} IS NULL OR ${t.subscriptionStarts} <= ${t.subscriptionEnds}`,
    ),
    check('teams_hidden_fields_known', sql`${t.hiddenFields} <@ ARRAY['email', 'notes']::text[]`),
  ],
);
