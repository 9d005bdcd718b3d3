import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { teamUserMappings, teams, type UserRole } from '../../db/schema';

/** The only code of the teams module that touches tables. */
/** A team record as the Sys_Admin team editor writes it (counts are the teams module's). */
export type TeamValues = Omit<
  typeof teams.$inferInsert,
  | 'id'
  | 'createdAt'
  | 'updatedAt'
  | 'actualNumOfUsers'
  | 'actualNumOfTrials'
  | 'actualNumOfParticipants'
>;

export function createTeamsRepository(db: Db) {
  return {
    async insertTeam(tx: DbOrTx, values: TeamValues): Promise<number> {
      const [row] = await tx.insert(teams).values(values).returning({ id: teams.id });
      return row!.id;
    },

    async updateTeam(tx: DbOrTx, teamId: number, values: TeamValues): Promise<void> {
      await tx.update(teams).set(values).where(eq(teams.id, teamId));
    },

    transaction: db.transaction.bind(db),

    /** A user's teams with the role in each, by team name. */
    async listMappings(userId: number) {
      return db
        .select({ team_id: teams.id, team_name: teams.teamName, role: teamUserMappings.role })
        .from(teamUserMappings)
        .innerJoin(teams, eq(teams.id, teamUserMappings.teamId))
        .where(eq(teamUserMappings.userId, userId))
        .orderBy(asc(sql`lower(${teams.teamName})`), asc(teams.id));
    },

    /**
     * Locks every mapping of the user (in id order) and answers the one for `teamId`.
     * Locking them all serialises concurrent team selections of one user, so the
     * last-selected flag moves cleanly.
     */
    async lockMappings(tx: DbOrTx, userId: number, teamId: number) {
      const rows = await tx
        .select({
          teamId: teamUserMappings.teamId,
          role: teamUserMappings.role,
          teamName: teams.teamName,
        })
        .from(teamUserMappings)
        .innerJoin(teams, eq(teams.id, teamUserMappings.teamId))
        .where(eq(teamUserMappings.userId, userId))
        .orderBy(asc(teamUserMappings.id))
        .for('update', { of: teamUserMappings });
      return rows.find((row) => row.teamId === teamId);
    },

    /**
     * Moves the user's last-selected flag to `teamId`: cleared elsewhere first, then set,
     * so the one-per-user unique index never sees two at once.
     */
    async markLastSelected(tx: DbOrTx, userId: number, teamId: number) {
      await tx
        .update(teamUserMappings)
        .set({ lastSelectedTeam: false })
        .where(
          and(
            eq(teamUserMappings.userId, userId),
            eq(teamUserMappings.lastSelectedTeam, true),
            ne(teamUserMappings.teamId, teamId),
          ),
        );
      await tx
        .update(teamUserMappings)
        .set({ lastSelectedTeam: true })
        .where(and(eq(teamUserMappings.userId, userId), eq(teamUserMappings.teamId, teamId)));
    },

    // ---- Members and counters (the teams module is their one owner) -------------------

    /** Locks the team row (FOR UPDATE) and answers its member count and limit; undefined for an unknown team. */
    async lockSeats(tx: DbOrTx, teamId: number) {
      return seatsOf(tx, teamId, true);
    },

    /** Member count and limit without a lock (early checks only). */
    async seats(teamId: number) {
      return seatsOf(db, teamId, false);
    },

    async insertMapping(
      tx: DbOrTx,
      values: { userId: number; teamId: number; role: UserRole; defaultTeam: boolean },
    ) {
      await tx.insert(teamUserMappings).values(values);
    },

    /** Keeps teams.actual_num_of_users equal to the team's mappings. */
    async syncUserCount(tx: DbOrTx, teamId: number) {
      const [row] = await tx
        .update(teams)
        .set({
          actualNumOfUsers: sql`(SELECT count(*) FROM ${teamUserMappings} WHERE ${teamUserMappings.teamId} = ${teamId})::int`,
        })
        .where(eq(teams.id, teamId))
        .returning({ users: teams.actualNumOfUsers });
      return row?.users;
    },

    /** Stores the counts the trials and participants modules computed from their own rows. */
    async setCounts(
      tx: DbOrTx,
      teamId: number,
      values: { actualNumOfTrials?: number; actualNumOfParticipants?: number },
    ) {
      const [row] = await tx.update(teams).set(values).where(eq(teams.id, teamId)).returning({
        trials: teams.actualNumOfTrials,
        participants: teams.actualNumOfParticipants,
      });
      return row;
    },
  };
}

async function seatsOf(q: DbOrTx, teamId: number, lock: boolean) {
  const query = q.select({ maxUsers: teams.maxUsers }).from(teams).where(eq(teams.id, teamId));
  const team = (await (lock ? query.for('update') : query))[0];
  if (!team) return undefined;
  const [members] = await q
    .select({ n: count() })
    .from(teamUserMappings)
    .where(eq(teamUserMappings.teamId, teamId));
  return { maxUsers: team.maxUsers, members: members?.n ?? 0 };
}

export type TeamsRepository = ReturnType<typeof createTeamsRepository>;
