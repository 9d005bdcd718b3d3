import {
  TEAM_MESSAGES,
  type Role,
  type SelectTeamInput,
  type TeamOption,
} from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import { AppError } from '../../lib/errors';
import type { AccountsService } from '../auth/accounts.service';
import type { AuthContext } from '../auth/session-context';
import type { TeamsRepository, TeamValues } from './teams.repository';
import type { Meta } from '../../lib/request-meta';

export type { TeamValues };

export const TEAM_SELECTED_MESSAGE = 'Team selected.';

/**
 * A user's teams and the team of the current session (access spec §7 /userTeamsData,
 * /selectTeam). The role always comes from the team-user mapping, never from the client.
 */
export function createTeamsService(deps: {
  repository: TeamsRepository;
  /** The session's team (the auth module owns sessions). */
  sessions: Pick<AccountsService, 'sessionTeam' | 'setSessionTeam'>;
}) {
  const { repository, sessions } = deps;

  return {
    // ---- For other modules, inside their transaction: the teams module is the one owner
    // of the teams and team_user_mappings tables, so members and counters change here.

    /** Inserts a team record (the team-admin editor, in its transaction); answers its id. */
    createTeam: (tx: DbOrTx, values: TeamValues) => repository.insertTeam(tx, values),

    /** Replaces a team's record (not its counts), in the team-admin editor's transaction. */
    updateTeam: (tx: DbOrTx, teamId: number, values: TeamValues) =>
      repository.updateTeam(tx, teamId, values),

    /** Locks the team row and answers its member count and `maxUsers`; undefined for an unknown team. */
    lockSeats: (tx: DbOrTx, teamId: number) => repository.lockSeats(tx, teamId),

    /** Member count and limit without a lock (an early check before a transaction). */
    seats: (teamId: number) => repository.seats(teamId),

    /**
     * Adds a member (the caller holds the lock from `lockSeats` and checked the limit) and
     * recounts `actual_num_of_users`.
     */
    async addMember(
      tx: DbOrTx,
      values: { userId: number; teamId: number; role: Role; defaultTeam: boolean },
    ): Promise<void> {
      await repository.insertMapping(tx, values);
      await repository.syncUserCount(tx, values.teamId);
    },

    /**
     * Stores the team's trial and/or participant counts, which the trials and participants
     * modules count from their own rows (under the team row lock). Answers both counts.
     */
    setCounts: (tx: DbOrTx, teamId: number, counts: { trials?: number; participants?: number }) =>
      repository.setCounts(tx, teamId, {
        ...(counts.trials !== undefined && { actualNumOfTrials: counts.trials }),
        ...(counts.participants !== undefined && { actualNumOfParticipants: counts.participants }),
      }),

    /** The caller's own team options. Throws 403 for anyone else's user id. */
    async userTeams(auth: AuthContext, userId: number): Promise<TeamOption[]> {
      if (userId !== auth.userId) throw AppError.forbidden();
      return repository.listMappings(auth.userId);
    },

    /**
     * Makes `teamId` the session's team and the user's last-selected team, in one
     * transaction with its audit row. Throws 403 "You are not a member of this team."
     * without a mapping. The body's teamName and role are ignored. The caller re-reads
     * the session to answer the new user state.
     */
    async selectTeam(auth: AuthContext, input: SelectTeamInput, meta: Meta): Promise<void> {
      const notAMember = () =>
        AppError.forbidden(TEAM_MESSAGES.notAMember, { reason: 'NOT_A_MEMBER' });
      if (input.teamId > 2_147_483_647) throw notAMember();
      await repository.transaction(async (tx) => {
        const mapping = await repository.lockMappings(tx, auth.userId, input.teamId);
        if (!mapping) throw notAMember();
        const previousTeamId = await sessions.sessionTeam(tx, auth.sessionId);
        await sessions.setSessionTeam(tx, auth.sessionId, auth.userId, mapping.teamId);
        await repository.markLastSelected(tx, auth.userId, mapping.teamId);
        await recordAudit(tx, {
          action: 'team.select',
          entityType: 'session',
          entityId: auth.sessionId,
          actorUserId: auth.userId,
          teamId: mapping.teamId,
          requestId: meta.requestId,
          before: { teamId: previousTeamId, role: auth.role },
          after: { teamId: mapping.teamId, role: mapping.role },
        });
      });
    },
  };
}

export type TeamsService = ReturnType<typeof createTeamsService>;
