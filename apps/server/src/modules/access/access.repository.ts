import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import type { PreparedCondition } from '../../lib/paging';
import { participants, teams, trialUsers, trials } from '../../db/schema';

/**
 * The access module's reads (Immich's AccessRepository): each answers one "may this user
 * reach this row" question in one query, always filtered on the team. Functions take the
 * caller's transaction (`q`) so a check inside a transaction sees what the transaction
 * sees (and, on PGlite's single connection, does not wait for it).
 */
export function createAccessRepository(db: Db) {
  return {
    /** Reads outside a transaction run here. */
    db: db as DbOrTx,

    /**
     * The trial of the team, if `memberUserId` is null (sees every trial) or a trial user
     * of it; undefined otherwise.
     */
    async findVisibleTrial(
      q: DbOrTx,
      teamId: number,
      trialId: number,
      memberUserId: number | null,
    ) {
      const rows = await q
        .select({ id: trials.id, teamId: trials.teamId })
        .from(trials)
        .where(
          and(eq(trials.id, trialId), eq(trials.teamId, teamId), memberOf(teamId, memberUserId)),
        )
        .limit(1);
      return rows[0];
    },

    /** The participant of the team, if its trial is visible (see `findVisibleTrial`). */
    async findVisibleParticipant(
      q: DbOrTx,
      teamId: number,
      participantId: number,
      memberUserId: number | null,
    ) {
      const rows = await q
        .select({ id: participants.id, teamId: participants.teamId, trialId: participants.trialId })
        .from(participants)
        .innerJoin(
          trials,
          and(eq(trials.id, participants.trialId), eq(trials.teamId, participants.teamId)),
        )
        .where(
          and(
            eq(participants.id, participantId),
            eq(participants.teamId, teamId),
            memberOf(teamId, memberUserId),
          ),
        )
        .limit(1);
      return rows[0];
    },

    /** Which of `ids` are the team's participants in visible trials, in one query. */
    async visibleParticipantIds(
      q: DbOrTx,
      teamId: number,
      ids: readonly number[],
      memberUserId: number | null,
    ) {
      if (ids.length === 0) return [];
      const rows = await q
        .select({ id: participants.id })
        .from(participants)
        .innerJoin(
          trials,
          and(eq(trials.id, participants.trialId), eq(trials.teamId, participants.teamId)),
        )
        .where(
          and(
            eq(participants.teamId, teamId),
            inArray(participants.id, [...ids]),
            memberOf(teamId, memberUserId),
          ),
        );
      return rows.map((row) => row.id);
    },

    /** Ids of the team's visible trials (all of them when `memberUserId` is null), ascending. */
    async visibleTrialIds(
      q: DbOrTx,
      teamId: number,
      memberUserId: number | null,
    ): Promise<number[]> {
      const rows = await q
        .select({ id: trials.id })
        .from(trials)
        .where(and(eq(trials.teamId, teamId), memberOf(teamId, memberUserId)))
        .orderBy(asc(trials.id));
      return rows.map((row) => row.id);
    },

    /**
     * The WHERE condition on `trials` for the team's visible trials (every one when
     * `memberUserId` is null): lists join it into their own query instead of asking first.
     * Made of placeholders with the values beside it, so a list builds each of its shapes
     * once (lib/paging `prepared`); the two kinds of scope are two shapes.
     */
    visibleTrialsCondition(teamId: number, memberUserId: number | null): PreparedCondition {
      const team = sql.placeholder('scopeTeamId');
      if (memberUserId === null) {
        return {
          condition: eq(trials.teamId, team),
          shape: 'team',
          values: { scopeTeamId: teamId },
        };
      }
      const member = sql.placeholder('scopeUserId');
      return {
        condition: and(
          eq(trials.teamId, team),
          sql`EXISTS (SELECT 1 FROM ${trialUsers} WHERE ${trialUsers.trialId} = ${trials.id} AND ${trialUsers.teamId} = ${team} AND ${trialUsers.userId} = ${member})`,
        )!,
        shape: 'member',
        values: { scopeTeamId: teamId, scopeUserId: memberUserId },
      };
    },

    /** Locks the team row (FOR UPDATE) and answers its limits; undefined for an unknown team. */
    async lockTeam(tx: DbOrTx, teamId: number) {
      const rows = await tx
        .select({
          id: teams.id,
          maxTrials: teams.maxTrials,
          maxParticipants: teams.maxParticipants,
        })
        .from(teams)
        .where(eq(teams.id, teamId))
        .for('update');
      return rows[0];
    },
  };
}

export type AccessRepository = ReturnType<typeof createAccessRepository>;

/** `trials` row is one the user is a trial user of (no condition when the user sees all). */
function memberOf(teamId: number, memberUserId: number | null) {
  if (memberUserId === null) return undefined;
  return sql`EXISTS (SELECT 1 FROM ${trialUsers} WHERE ${trialUsers.trialId} = ${trials.id} AND ${trialUsers.teamId} = ${teamId} AND ${trialUsers.userId} = ${memberUserId})`;
}
