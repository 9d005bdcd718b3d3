import {
  TRIAL_USER_MESSAGES,
  type AddTrialUserInput,
  type DeleteTrialUserInput,
  type TrialUser,
} from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import { AppError } from '../../lib/errors';
import { isDbId } from '../../lib/db-ids';
import type { Meta } from '../../lib/request-meta';
import { trialNotFound, type AccessService } from '../access/access.service';
import type { AuthContext } from '../auth/session-context';
import type { TrialsRepository } from './trials.repository';

export const TRIAL_USER_SUCCESS = {
  added: 'The user has been added to the trial.',
  removed: 'The user has been removed from the trial.',
} as const;

/**
 * Trial users of a trial of the selected team (access spec §7 /trialUsers, /teamUsers).
 * Only members of the same team can be added; the owner cannot be removed. Another
 * team's trial answers 404 "Trial not found." on every call.
 */
export function createTrialUsersService(deps: {
  repository: TrialsRepository;
  access: Pick<AccessService, 'requireTrial'>;
}) {
  const { repository, access } = deps;

  async function teamTrial(auth: AuthContext, trialId: number) {
    const trial = await access.requireTrial(auth, trialId, 'trialUsers.manage');
    return { teamId: trial.teamId, trial };
  }

  return {
    /** The trial's users (owner first, flagged). Throws 404, 403 TEAM_INACTIVE. */
    async list(auth: AuthContext, trialId: number): Promise<TrialUser[]> {
      const { teamId } = await teamTrial(auth, trialId);
      return repository.listTrialUsers(teamId, trialId);
    },

    /** Active staff members of the team who could be added to the trial. Throws 404. */
    async addable(auth: AuthContext, trialId: number): Promise<{ id: number; email: string }[]> {
      const { teamId } = await teamTrial(auth, trialId);
      return repository.listAddableTeamUsers(teamId, trialId);
    },

    /**
     * Adds a member of the team to the trial. Throws 404 (trial), 400 "not a member of
     * your team" (unknown email, other team, inactive or participant account — the same
     * answer for each), 409 already a trial user.
     */
    async add(auth: AuthContext, input: AddTrialUserInput, meta: Meta) {
      const { teamId } = await teamTrial(auth, input.trialId);
      const member = await repository.findTeamStaffByEmail(
        teamId,
        input.userEmail.trim().toLowerCase(),
      );
      if (!member)
        throw new AppError(400, TRIAL_USER_MESSAGES.notInTeam, {
          displayToUser: true,
          reason: 'NOT_IN_TEAM',
        });
      await repository.transaction(async (tx) => {
        // Locks the trial so a concurrent delete cannot leave a dangling insert.
        if (!(await repository.lockTrial(tx, teamId, input.trialId))) throw trialNotFound();
        if (
          !(await repository.insertTrialUser(tx, {
            teamId,
            trialId: input.trialId,
            userId: member.id,
          }))
        ) {
          throw AppError.conflict(TRIAL_USER_MESSAGES.alreadyInTrial);
        }
        await recordAudit(tx, {
          action: 'trial_user.add',
          entityType: 'trial_user',
          entityId: `${input.trialId}:${member.id}`,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          after: { trialId: input.trialId, userId: member.id },
        });
      });
      return {
        message: TRIAL_USER_SUCCESS.added,
        data: { userId: member.id, userEmail: member.email },
      };
    },

    /**
     * Removes a user from the trial. `userId` decides (the email in the body is only
     * display data). Throws 404 (trial, or not a user of it), 409 for the owner.
     */
    async remove(auth: AuthContext, input: DeleteTrialUserInput, meta: Meta) {
      const { teamId } = await teamTrial(auth, input.trialId);
      if (!isDbId(input.userId)) throw AppError.notFound(TRIAL_USER_MESSAGES.notFound);
      await repository.transaction(async (tx) => {
        const trial = await repository.lockTrial(tx, teamId, input.trialId);
        if (!trial) throw trialNotFound();
        if (trial.ownerUserId === input.userId)
          throw AppError.conflict(TRIAL_USER_MESSAGES.ownerCannotBeRemoved);
        if (!(await repository.deleteTrialUser(tx, teamId, input.trialId, input.userId))) {
          throw AppError.notFound(TRIAL_USER_MESSAGES.notFound);
        }
        await recordAudit(tx, {
          action: 'trial_user.remove',
          entityType: 'trial_user',
          entityId: `${input.trialId}:${input.userId}`,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before: { trialId: input.trialId, userId: input.userId },
        });
      });
      return { message: TRIAL_USER_SUCCESS.removed };
    },
  };
}

export type TrialUsersService = ReturnType<typeof createTrialUsersService>;
