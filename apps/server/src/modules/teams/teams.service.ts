import { TEAM_MESSAGES, type SelectTeamInput, type TeamOption } from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { TeamsRepository } from './teams.repository';
import type { Meta } from '../../lib/request-meta';

export const TEAM_SELECTED_MESSAGE = 'Team selected.';

/**
 * A user's teams and the team of the current session (access spec §7 /userTeamsData,
 * /selectTeam). The role always comes from the team-user mapping, never from the client.
 */
export function createTeamsService(deps: { repository: TeamsRepository }) {
  const { repository } = deps;

  return {
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
    async selectTeam(
      auth: AuthContext,
      input: SelectTeamInput,
      meta: Meta,
    ): Promise<void> {
      const notAMember = () =>
        AppError.forbidden(TEAM_MESSAGES.notAMember, { reason: 'NOT_A_MEMBER' });
      if (input.teamId > 2_147_483_647) throw notAMember();
      await repository.transaction(async (tx) => {
        const mapping = await repository.lockMappings(tx, auth.userId, input.teamId);
        if (!mapping) throw notAMember();
        const previousTeamId = await repository.sessionTeam(tx, auth.sessionId);
        await repository.setSessionTeam(tx, auth.sessionId, auth.userId, mapping.teamId);
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
