import { and, asc, count, desc, eq, ne, notExists, sql } from 'drizzle-orm';
import type { ListQuery, TRIAL_LIST_SORT_COLUMNS } from '@trialpulse/shared';
import type { Db, DbOrTx } from '../../db/client';
import { teamTrialTotals, teamUserMappings, trialUsers, trials, users } from '../../db/schema';
import {
  defineList,
  ListStatements,
  searchVia,
  selectPage,
  storedSearchText,
  textSort,
  type PreparedCondition,
} from '../../lib/paging';

type TrialListSort = (typeof TRIAL_LIST_SORT_COLUMNS)[number];

/** How the trials table sorts and searches (its column ids), newest first by default. */
const trialList = defineList<TrialListSort>({
  sortable: {
    trialNumber: textSort(trials.trialNumber),
    trialName: textSort(trials.trialName),
    trialNotes: textSort(trials.trialNotes),
    trialOwnerEmail: textSort(users.email),
  },
  searchable: [
    // Trial Number, name and notes as one stored lowered text (decision 0265).
    storedSearchText(trials.searchText),
    // The owner's email as the ids of the trials whose owner's email matches, computed once
    // (an InitPlan), so every arm of the filter reads an index of `trials` and the planner
    // sees a few ids rather than all trials of an owner (decision 0203).
    searchVia(
      (pattern) =>
        sql`${trials.id} = ANY (ARRAY(SELECT ${trials.id} FROM ${trials} WHERE ${trials.ownerUserId} = ANY (ARRAY(SELECT ${users.id} FROM ${users} WHERE lower(${users.email}) LIKE ${pattern}))))`,
    ),
  ],
  defaultOrder: [desc(trials.creationDate), desc(trials.id)],
});

/**
 * The only code of the trials module that touches tables. Every read and write takes the
 * team id and filters on it, so a trial of another team is never found, changed or shown.
 */
export function createTrialsRepository(db: Db) {
  const listColumns = {
    id: trials.id,
    teamId: trials.teamId,
    trialNumber: trials.trialNumber,
    trialName: trials.trialName,
    trialNotes: trials.trialNotes,
    ownerEmail: users.email,
    creationDate: trials.creationDate,
  };

  const listStatements = new ListStatements();

  return {
    transaction: db.transaction.bind(db),

    /**
     * The caller's visible trials (`visibleTrials`, from the access module, of team
     * `teamId`) as a list call asks (decision 0040): one query for the page and the total,
     * only the columns the answer shows, each shape built and prepared once (decision 0110).
     * When the caller sees the whole team, the total is the team's maintained count
     * (decision 0202); a trial member's trials are counted.
     */
    async listTrials(
      query: ListQuery<TrialListSort>,
      visibleTrials: PreparedCondition,
      teamId: number,
    ) {
      return selectPage(
        query,
        trialList,
        (filter, total) =>
          db
            .select({ ...listColumns, total })
            .from(trials)
            .innerJoin(users, eq(users.id, trials.ownerUserId))
            .where(and(visibleTrials.condition, filter))
            .$dynamic(),
        {
          // Every trial has its one owner (NOT NULL foreign key): the trials alone count.
          countFrom: () =>
            db.select({ id: trials.id }).from(trials).where(visibleTrials.condition).$dynamic(),
          maintainedTotal:
            visibleTrials.shape === 'team'
              ? () =>
                  sql`SELECT ${teamTrialTotals.trials} FROM ${teamTrialTotals} WHERE ${teamTrialTotals.teamId} = ${sql.placeholder('listTeamId')}`
              : undefined,
          // Deep pages by keys (decision 0204), except by the owner's email, which needs the
          // users table: the keys of the other orders come from one index of `trials`.
          pageKeys:
            query.sort?.by === 'trialOwnerEmail'
              ? undefined
              : {
                  key: trials.id,
                  select: () =>
                    db
                      .select({ id: trials.id })
                      .from(trials)
                      .where(visibleTrials.condition)
                      .$dynamic(),
                },
          prepared: {
            statements: listStatements,
            shape: `trials:${visibleTrials.shape}`,
            values: { ...visibleTrials.values, listTeamId: teamId },
          },
        },
      );
    },

    /** Locks one trial of the team for a change; blocks concurrent child inserts (FK key-share locks). */
    async lockTrial(tx: DbOrTx, teamId: number, trialId: number) {
      const rows = await tx
        .select()
        .from(trials)
        .where(and(eq(trials.id, trialId), eq(trials.teamId, teamId)))
        .for('update');
      return rows[0];
    },

    async countTrials(tx: DbOrTx, teamId: number) {
      const [row] = await tx.select({ n: count() }).from(trials).where(eq(trials.teamId, teamId));
      return row?.n ?? 0;
    },

    /** Whether another trial of the team has this Trial Number (trimmed, case-insensitive). */
    async trialNumberTaken(
      tx: DbOrTx,
      teamId: number,
      trialNumber: string,
      exceptTrialId?: number,
    ) {
      const rows = await tx
        .select({ id: trials.id })
        .from(trials)
        .where(
          and(
            eq(trials.teamId, teamId),
            sql`lower(btrim(${trials.trialNumber})) = lower(btrim(${trialNumber}))`,
            exceptTrialId === undefined ? undefined : ne(trials.id, exceptTrialId),
          ),
        )
        .limit(1);
      return rows.length > 0;
    },

    async trialCodes(tx: DbOrTx, teamId: number): Promise<Set<string>> {
      const rows = await tx
        .select({ code: trials.trialCode })
        .from(trials)
        .where(eq(trials.teamId, teamId));
      return new Set(rows.map((row) => row.code.toUpperCase()));
    },

    async insertTrial(tx: DbOrTx, values: typeof trials.$inferInsert) {
      const [row] = await tx.insert(trials).values(values).returning();
      return row!;
    },

    async updateTrial(
      tx: DbOrTx,
      teamId: number,
      trialId: number,
      values: { trialNumber: string; trialName: string; trialNotes: string },
    ) {
      const [row] = await tx
        .update(trials)
        .set(values)
        .where(and(eq(trials.id, trialId), eq(trials.teamId, teamId)))
        .returning();
      return row;
    },

    async deleteTrialUsers(tx: DbOrTx, teamId: number, trialId: number) {
      return tx
        .delete(trialUsers)
        .where(and(eq(trialUsers.trialId, trialId), eq(trialUsers.teamId, teamId)))
        .returning({ userId: trialUsers.userId });
    },

    async deleteTrial(tx: DbOrTx, teamId: number, trialId: number) {
      const rows = await tx
        .delete(trials)
        .where(and(eq(trials.id, trialId), eq(trials.teamId, teamId)))
        .returning({ id: trials.id });
      return rows.length === 1;
    },

    /** The participant-code prefix of a trial of the team (undefined for another team's trial). */
    async trialCode(q: DbOrTx, teamId: number, trialId: number): Promise<string | undefined> {
      const rows = await q
        .select({ trialCode: trials.trialCode })
        .from(trials)
        .where(and(eq(trials.id, trialId), eq(trials.teamId, teamId)));
      return rows[0]?.trialCode;
    },

    // ---- Trial users -------------------------------------------------------------------

    /** The trial's users with their emails; the owner first. */
    async listTrialUsers(teamId: number, trialId: number) {
      return db
        .select({
          id: users.id,
          email: users.email,
          isOwner: sql<boolean>`${users.id} = ${trials.ownerUserId}`,
        })
        .from(trialUsers)
        .innerJoin(
          trials,
          and(eq(trials.id, trialUsers.trialId), eq(trials.teamId, trialUsers.teamId)),
        )
        .innerJoin(users, eq(users.id, trialUsers.userId))
        .where(and(eq(trialUsers.trialId, trialId), eq(trialUsers.teamId, teamId)))
        .orderBy(desc(sql`${users.id} = ${trials.ownerUserId}`), asc(users.email));
    },

    /** Active staff members of the team who are not users of the trial yet. */
    async listAddableTeamUsers(teamId: number, trialId: number) {
      return db
        .select({ id: users.id, email: users.email })
        .from(teamUserMappings)
        .innerJoin(users, eq(users.id, teamUserMappings.userId))
        .where(
          and(
            eq(teamUserMappings.teamId, teamId),
            eq(users.accountType, 'staff'),
            eq(users.isActive, true),
            notExists(
              db
                .select({ one: sql`1` })
                .from(trialUsers)
                .where(and(eq(trialUsers.trialId, trialId), eq(trialUsers.userId, users.id))),
            ),
          ),
        )
        .orderBy(asc(users.email));
    },

    /** An active staff account with a role in the team, by (lower-cased) email. */
    async findTeamStaffByEmail(teamId: number, email: string) {
      const rows = await db
        .select({ id: users.id, email: users.email })
        .from(users)
        .innerJoin(
          teamUserMappings,
          and(eq(teamUserMappings.userId, users.id), eq(teamUserMappings.teamId, teamId)),
        )
        .where(
          and(eq(users.email, email), eq(users.accountType, 'staff'), eq(users.isActive, true)),
        )
        .limit(1);
      return rows[0];
    },

    /** Adds a trial user; false when the user already is one. */
    async insertTrialUser(tx: DbOrTx, values: { teamId: number; trialId: number; userId: number }) {
      const rows = await tx
        .insert(trialUsers)
        .values(values)
        .onConflictDoNothing()
        .returning({ id: trialUsers.id });
      return rows.length === 1;
    },

    async deleteTrialUser(tx: DbOrTx, teamId: number, trialId: number, userId: number) {
      const rows = await tx
        .delete(trialUsers)
        .where(
          and(
            eq(trialUsers.trialId, trialId),
            eq(trialUsers.teamId, teamId),
            eq(trialUsers.userId, userId),
          ),
        )
        .returning({ id: trialUsers.id });
      return rows.length === 1;
    },
  };
}

export type TrialsRepository = ReturnType<typeof createTrialsRepository>;
