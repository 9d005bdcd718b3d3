import { and, asc, eq, ne, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { sessions, teamUserMappings, teams } from '../../db/schema';

/** The only code of the teams module that touches tables. */
export function createTeamsRepository(db: Db) {
  return {
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

    async sessionTeam(tx: DbOrTx, sessionId: string) {
      const rows = await tx
        .select({ teamId: sessions.teamId })
        .from(sessions)
        .where(eq(sessions.id, sessionId));
      return rows[0]?.teamId ?? null;
    },

    async setSessionTeam(tx: DbOrTx, sessionId: string, userId: number, teamId: number) {
      await tx
        .update(sessions)
        .set({ teamId })
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)));
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
  };
}

export type TeamsRepository = ReturnType<typeof createTeamsRepository>;
