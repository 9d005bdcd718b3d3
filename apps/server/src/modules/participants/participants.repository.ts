import { and, asc, count, eq, exists, sql, type SQL, type SQLWrapper } from 'drizzle-orm';
import type { ListQuery, PARTICIPANT_LIST_SORT_COLUMNS } from '@trialpulse/shared';
import type { PgSelect } from 'drizzle-orm/pg-core';
import type { Db, DbOrTx } from '../../db/client';
import { participantDevices, participants, trialParticipantTotals, trials } from '../../db/schema';
import {
  defineList,
  ListStatements,
  selectPage,
  storedSearchText,
  textSort,
  type PreparedCondition,
} from '../../lib/paging';

export type ParticipantRow = typeof participants.$inferSelect;

type ParticipantListSort = (typeof PARTICIPANT_LIST_SORT_COLUMNS)[number];

/**
 * How the participants table sorts and searches (its column ids), in the order participants
 * were added by default. Columns the team hides are neither searched nor sortable.
 */
function participantList(hidden: ReadonlySet<string>) {
  const visible = (field: string, column: SQLWrapper) => (hidden.has(field) ? [] : [column]);
  return defineList<ParticipantListSort>({
    sortable: {
      participant_code: textSort(participants.participantCode),
      email: textSort(participants.email),
      gender: participants.gender,
      age: participants.age,
      notes: textSort(participants.notes),
    },
    // Code, gender, age, and e-mail and notes unless hidden, as stored lowered texts (decision
    // 0266): all five in one where the team hides neither, else the three always searched
    // and the visible one's own column, so a hidden field is never read by the filter.
    searchable:
      hidden.has('email') || hidden.has('notes')
        ? [
            storedSearchText(participants.searchTextAlways),
            ...visible('email', participants.email),
            ...visible('notes', participants.notes),
          ]
        : [storedSearchText(participants.searchText)],
    defaultOrder: [asc(participants.id)],
  });
}

/** The columns a participant list answers. */
const participantListColumns = {
  id: participants.id,
  trialId: participants.trialId,
  participantCode: participants.participantCode,
  participantCodeSuffix: participants.participantCodeSuffix,
  email: participants.email,
  gender: participants.gender,
  age: participants.age,
  notes: participants.notes,
  createdAt: participants.createdAt,
};
export type ParticipantListRow = Omit<
  typeof participants.$inferSelect,
  'teamId' | 'updatedAt' | 'searchText' | 'searchTextAlways'
>;

/**
 * The only code of the participants module that touches tables. Every read and write takes
 * the team id and filters on it, so another team's participant or trial is never found,
 * changed or shown. Functions taking `q` run on the caller's transaction or on the database.
 */
export function createParticipantsRepository(db: Db) {
  const listStatements = new ListStatements();

  return {
    db: db as DbOrTx,
    transaction: db.transaction.bind(db),

    /** The trial's participants in the order they were added. */
    async listParticipants(q: DbOrTx, teamId: number, trialId: number) {
      return q
        .select()
        .from(participants)
        .where(and(eq(participants.trialId, trialId), eq(participants.teamId, teamId)))
        .orderBy(asc(participants.id));
    },

    /**
     * A trial's participants as a list call asks (decision 0040), if the trial is one of
     * `visibleTrials` (access module): one query for the page and the total, each shape
     * built and prepared once (decision 0110). An empty answer does not tell an invisible
     * trial from an empty one; the caller checks then.
     */
    async listParticipantsPage(
      query: ListQuery<ParticipantListSort>,
      trialId: number,
      visibleTrials: PreparedCondition,
      hidden: ReadonlySet<string>,
    ) {
      // The trial's participants, if the trial is visible, that the filter keeps.
      const scoped = <T extends PgSelect>(select: T, filter?: SQL) =>
        select
          .innerJoin(
            trials,
            and(eq(trials.id, participants.trialId), eq(trials.teamId, participants.teamId)),
          )
          .where(
            and(
              eq(participants.trialId, sql.placeholder('trialId')),
              visibleTrials.condition,
              filter,
            ),
          );
      return selectPage(
        query,
        participantList(hidden),
        (filter, total) =>
          scoped(
            db
              .select({ ...participantListColumns, total })
              .from(participants)
              .$dynamic(),
            filter,
          ),
        {
          countFrom: () => scoped(db.select({ id: participants.id }).from(participants).$dynamic()),
          // The trial's maintained count (decision 0202): a row of the list comes back only
          // when the trial is visible, and the total is read from such a row.
          maintainedTotal: () =>
            sql`SELECT ${trialParticipantTotals.participants} FROM ${trialParticipantTotals} WHERE ${trialParticipantTotals.trialId} = ${sql.placeholder('trialId')}`,
          // Deep pages by keys (decision 0204): the trial's visibility is asked once, so the
          // keys come from participants_trial_id_id_idx or participants_trial_id_code_idx alone.
          pageKeys: {
            key: participants.id,
            select: () =>
              db
                .select({ id: participants.id })
                .from(participants)
                .where(
                  and(
                    eq(participants.trialId, sql.placeholder('trialId')),
                    exists(
                      db
                        .select({ one: sql`1` })
                        .from(trials)
                        .where(
                          and(eq(trials.id, sql.placeholder('trialId')), visibleTrials.condition),
                        ),
                    ),
                  ),
                )
                .$dynamic(),
          },
          prepared: {
            statements: listStatements,
            // The hidden fields change what the filter searches and what may be sorted.
            shape: `participants:${visibleTrials.shape}:hides ${[...hidden].sort().join(',')}`,
            values: { ...visibleTrials.values, trialId },
          },
        },
      );
    },

    /** One participant of the team; with `lock`, locked for a change (FOR UPDATE). */
    async findParticipant(q: DbOrTx, teamId: number, participantId: number, lock = false) {
      const query = q
        .select()
        .from(participants)
        .where(and(eq(participants.id, participantId), eq(participants.teamId, teamId)));
      const rows = lock ? await query.for('update') : await query;
      return rows[0];
    },

    async countTeamParticipants(tx: DbOrTx, teamId: number) {
      const [row] = await tx
        .select({ n: count() })
        .from(participants)
        .where(eq(participants.teamId, teamId));
      return row?.n ?? 0;
    },

    /** The largest all-digit suffix of the trial as a number (0 when there is none). */
    async maxNumericSuffix(tx: DbOrTx, trialId: number): Promise<number> {
      const [row] = await tx
        .select({
          max: sql<string | null>`max(${participants.participantCodeSuffix}::bigint)`,
        })
        .from(participants)
        .where(
          and(
            eq(participants.trialId, trialId),
            sql`${participants.participantCodeSuffix} ~ '^[0-9]+$'`,
          ),
        );
      return row?.max === null || row?.max === undefined ? 0 : Number(row.max);
    },

    async suffixes(tx: DbOrTx, trialId: number): Promise<Set<string>> {
      const rows = await tx
        .select({ suffix: participants.participantCodeSuffix })
        .from(participants)
        .where(eq(participants.trialId, trialId));
      return new Set(rows.map((row) => row.suffix));
    },

    async insertParticipant(tx: DbOrTx, values: typeof participants.$inferInsert) {
      const [row] = await tx.insert(participants).values(values).returning();
      return row!;
    },

    async updateParticipant(
      tx: DbOrTx,
      teamId: number,
      participantId: number,
      values: Partial<
        Pick<
          typeof participants.$inferInsert,
          'email' | 'gender' | 'age' | 'notes' | 'participantCode' | 'participantCodeSuffix'
        >
      >,
    ) {
      const [row] = await tx
        .update(participants)
        .set(values)
        .where(and(eq(participants.id, participantId), eq(participants.teamId, teamId)))
        .returning();
      return row;
    },

    /** The device connections deleting the participant takes with it (the foreign keys cascade). */
    async countConnections(tx: DbOrTx, teamId: number, participantId: number) {
      const [connections] = await tx
        .select({ n: count() })
        .from(participantDevices)
        .where(
          and(
            eq(participantDevices.participantId, participantId),
            eq(participantDevices.teamId, teamId),
          ),
        );
      return connections?.n ?? 0;
    },

    /**
     * Deletes the participant; the database cascades to device connections (with their
     * encrypted tokens), synced data points, weekly summaries and consent-link tokens.
     */
    async deleteParticipant(tx: DbOrTx, teamId: number, participantId: number) {
      const rows = await tx
        .delete(participants)
        .where(and(eq(participants.id, participantId), eq(participants.teamId, teamId)))
        .returning({ id: participants.id });
      return rows.length === 1;
    },

    /** The ids of the trial's participants (for a trial deletion: each is revoked first). */
    async participantIdsOfTrial(q: DbOrTx, teamId: number, trialId: number): Promise<number[]> {
      const rows = await q
        .select({ id: participants.id })
        .from(participants)
        .where(and(eq(participants.trialId, trialId), eq(participants.teamId, teamId)))
        .orderBy(asc(participants.id));
      return rows.map((row) => row.id);
    },

    async countTrialParticipants(tx: DbOrTx, teamId: number, trialId: number) {
      const [row] = await tx
        .select({ n: count() })
        .from(participants)
        .where(and(eq(participants.trialId, trialId), eq(participants.teamId, teamId)));
      return row?.n ?? 0;
    },

    /**
     * Deletes the trial's participants (the database cascades as for one participant).
     * Returns ids and codes only: audit rows carry no participant contact data.
     */
    async deleteParticipantsOfTrial(tx: DbOrTx, teamId: number, trialId: number) {
      return tx
        .delete(participants)
        .where(and(eq(participants.trialId, trialId), eq(participants.teamId, teamId)))
        .returning({ id: participants.id, participantCode: participants.participantCode });
    },
  };
}

export type ParticipantsRepository = ReturnType<typeof createParticipantsRepository>;
