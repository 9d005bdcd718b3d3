import { sql, type SQL } from 'drizzle-orm';
import {
  check,
  foreignKey,
  index,
  integer,
  pgEnum,
  pgTable,
  smallint,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, identityId, updatedAt } from './columns';
import { teams } from './teams';
import { trials } from './trials';

export const participantGenderEnum = pgEnum('participant_gender', [
  'female',
  'male',
  'other',
  'none',
]);

/**
 * A trial participant. No personal health information: code, optional e-mail (stored
 * lower-cased, unique per team), gender, age, notes. The suffix is digits and underscores
 * (≤ 12), unique within the trial; participant_code = `{trial_code}-{suffix}`.
 */
export const participants = pgTable(
  'participants',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    trialId: integer('trial_id').notNull(),
    participantCode: text('participant_code').notNull(),
    participantCodeSuffix: text('participant_code_suffix').notNull(),
    email: text('email'),
    gender: participantGenderEnum('gender').notNull().default('none'),
    age: smallint('age'),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /**
     * What the participants list's filter searches when the team hides no field (decision
     * 0266): code, gender, age, e-mail and notes, each lowered as the filter compared them,
     * joined by U+001F, kept by the database. One LIKE on a stored text and one trigram index
     * instead of five `lower()` and five index reads per filtered page. Never written by the
     * app (a generated column), never answered (it holds the fields a team may hide).
     */
    searchText: text('search_text').generatedAlwaysAs(
      (): SQL =>
        sql`${alwaysSearched()} || chr(31) || coalesce(lower(${participants.email}), '') || chr(31) || coalesce(lower(${participants.notes}), '')`,
    ),
    /**
     * The fields the filter searches whatever the team hides (code, gender, age), the same way:
     * a team that hides e-mail or notes searches this text and its visible fields' own columns,
     * so a hidden field never takes part in a filter, not even in its cost.
     */
    searchTextAlways: text('search_text_always').generatedAlwaysAs((): SQL => alwaysSearched()),
  },
  (t) => [
    unique('participants_id_team_id_unique').on(t.id, t.teamId),
    unique('participants_trial_code_suffix_unique').on(t.trialId, t.participantCodeSuffix),
    uniqueIndex('participants_team_email_unique')
      .on(t.teamId, t.email)
      .where(sql`${t.email} IS NOT NULL`),
    index('participants_team_id_idx').on(t.teamId),
    index('participants_trial_id_team_id_idx').on(t.trialId, t.teamId),
    // A trial's list pages in their orders (decision 0043): added order, by code.
    index('participants_trial_id_id_idx').on(t.trialId, t.id),
    // The code itself last, so deep pages read their keys from this index alone (decision 0204).
    index('participants_trial_id_code_idx').on(
      t.trialId,
      sql`lower(${t.participantCode})`,
      t.id,
      t.participantCode,
    ),
    // The list's global filter (`search_text LIKE '%…%'`, or where the team hides fields
    // `search_text_always` and the visible ones' `lower(column) LIKE '%…%'`) reads trigram
    // indexes (decisions 0203, 0266). E-mail and notes keep their own for a team that hides
    // one of them and shows the other.
    index('participants_search_text_trgm_idx').using('gin', sql`${t.searchText} gin_trgm_ops`),
    index('participants_search_text_always_trgm_idx').using(
      'gin',
      sql`${t.searchTextAlways} gin_trgm_ops`,
    ),
    index('participants_email_trgm_idx').using('gin', sql`lower(${t.email}) gin_trgm_ops`),
    index('participants_notes_trgm_idx').using('gin', sql`lower(${t.notes}) gin_trgm_ops`),
    foreignKey({
      name: 'participants_trial_fk',
      columns: [t.trialId, t.teamId],
      foreignColumns: [trials.id, trials.teamId],
    }).onDelete('cascade'),
    check('participants_suffix_format', sql`${t.participantCodeSuffix} ~ '^[0-9_]{1,12}$'`),
    check(
      'participants_code_ends_with_suffix',
      sql`right(${t.participantCode}, char_length(${t.participantCodeSuffix}) + 1) = '-' || ${t.participantCodeSuffix}`,
    ),
    check(
      'participants_email_lower_case',
      sql`${t.email} IS NULL OR ${t.email} = lower(${t.email})`,
    ),
    check('participants_age_range', sql`${t.age} IS NULL OR (${t.age} > 0 AND ${t.age} <= 999)`),
    check('participants_notes_max_300', sql`char_length(${t.notes}) <= 300`),
  ],
);

/**
 * Code, gender and age as the filter compares them (lowered, age as text, absent as empty),
 * joined by U+001F. Gender goes through participant_gender_label(), an immutable enum-to-text
 * (a cast of an enum is only stable, so neither a generated column nor an index may hold it).
 */
function alwaysSearched(): SQL {
  return sql`lower(${participants.participantCode}) || chr(31) || lower(participant_gender_label(${participants.gender})) || chr(31) || coalesce(lower((${participants.age})::text), '')`;
}

/**
 * How many participants each trial has, for the participants list's total (decision 0202).
 * Kept by statement-level triggers on `participants` (migration 0016), in the writing
 * transaction, so no code writes it; a trial without a row has none.
 */
export const trialParticipantTotals = pgTable('trial_participant_totals', {
  trialId: integer('trial_id')
    .primaryKey()
    .references(() => trials.id, { onDelete: 'cascade' }),
  participants: integer('participants').notNull(),
});
