import type { PreparedCondition } from '../../lib/paging';
import { PARTICIPANT_MESSAGES, TRIAL_MESSAGES, can, type Action } from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { isDbId } from '../../lib/db-ids';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { AccessRepository } from './access.repository';

/** A trial the caller may reach (its team is the caller's selected, Active team). */
export type TrialRef = { id: number; teamId: number };
/** A participant the caller may reach, with its trial. */
export type ParticipantRef = { id: number; teamId: number; trialId: number };

export type AccessOptions = {
  /** Run the check inside this transaction (required when one is open: PGlite has one connection). */
  tx?: DbOrTx;
  /** The 404 to throw instead of the default one (some calls have their own spec text). */
  notFound?: () => AppError;
};

/** 404 "Trial not found." — also the answer for another team's trial or an invisible one, never 403. */
export const trialNotFound = () => AppError.notFound(TRIAL_MESSAGES.notFound);
/** 404 with the spec's "could not find participant's info" — also for another team's participant. */
export const participantNotFound = () => AppError.notFound(PARTICIPANT_MESSAGES.notFound);

/**
 * Who may see and change which team, trial and participant (decisions 0009, 0014): the one
 * place every module asks before it reads or writes team, trial or participant data.
 * Services call it first, before any business rule, naming the action (the permissions
 * table in `@trialpulse/shared`) they are about to do:
 *
 *     const teamId = access.requireTeam(auth, 'participant.view');
 *     const trial = await access.requireTrial(auth, trialId, 'participant.create', { tx });
 *     const ref = await access.requireParticipant(auth, participantId, 'device.connect');
 *
 * Rules: the role must allow the action (403, as the route guard already answered); the
 * selected team must be Active (403 TEAM_INACTIVE); Admin and Sys_Admin see every trial of
 * the team, User and Viewer only the trials they are trial users of; anything else —
 * unknown id, another team's row, an invisible trial — answers 404, never 403.
 */
export function createAccessService(deps: { repository: AccessRepository }) {
  const { repository } = deps;

  /** The user id to filter trial membership on; null when the role sees every trial. */
  const memberFilter = (auth: AuthContext) => (seesAllTrials(auth) ? null : auth.userId);

  function requireTeam(auth: AuthContext, action: Action): number {
    if (!can(auth.role, action)) throw AppError.forbidden();
    if (auth.teamId === null || auth.user.teamStatus !== 'Active') {
      throw AppError.forbidden(TRIAL_MESSAGES.teamInactive, { reason: 'TEAM_INACTIVE' });
    }
    return auth.teamId;
  }

  return {
    /**
     * The caller's selected team, for `action`. Throws 403 when the role may not do the
     * action, 403 TEAM_INACTIVE when the team is switched off or outside its subscription.
     */
    requireTeam,

    /**
     * For calls that name a team in the path (`/teamAllowedDevices/:teamId`): the selected
     * team when `teamId` is it. Throws as `requireTeam`, and `notFound()` (default 404
     * "Team not found.") for any other team.
     */
    requireOwnTeam(
      auth: AuthContext,
      teamId: number,
      action: Action,
      notFound = teamNotFound,
    ): number {
      const selected = requireTeam(auth, action);
      if (teamId !== selected) throw notFound();
      return selected;
    },

    /**
     * The trial when the caller may do `action` on it. Throws 403 (role), 403
     * TEAM_INACTIVE, and 404 "Trial not found." (or `options.notFound()`) for an unknown
     * id, another team's trial, or one a User/Viewer is not a trial user of.
     */
    async requireTrial(
      auth: AuthContext,
      trialId: number,
      action: Action,
      options: AccessOptions = {},
    ): Promise<TrialRef> {
      const teamId = requireTeam(auth, action);
      const notFound = options.notFound ?? trialNotFound;
      if (!isDbId(trialId)) throw notFound();
      const trial = await repository.findVisibleTrial(
        options.tx ?? repository.db,
        teamId,
        trialId,
        memberFilter(auth),
      );
      if (!trial) throw notFound();
      return trial;
    },

    /**
     * The participant when the caller may do `action` on it (its trial is visible). Throws
     * 403 (role), 403 TEAM_INACTIVE, and 404 with the spec's participant text (or
     * `options.notFound()`) otherwise.
     */
    async requireParticipant(
      auth: AuthContext,
      participantId: number,
      action: Action,
      options: AccessOptions = {},
    ): Promise<ParticipantRef> {
      const teamId = requireTeam(auth, action);
      const notFound = options.notFound ?? participantNotFound;
      if (!isDbId(participantId)) throw notFound();
      const participant = await repository.findVisibleParticipant(
        options.tx ?? repository.db,
        teamId,
        participantId,
        memberFilter(auth),
      );
      if (!participant) throw notFound();
      return participant;
    },

    /**
     * The caller's visible trials as a WHERE condition on `trials` (team, and trial
     * membership for User and Viewer), for a list that reads them in its own single query
     * (join `trials` when listing their children). Throws 403 (role), 403 TEAM_INACTIVE.
     */
    trialScope(
      auth: AuthContext,
      action: Action,
    ): { teamId: number; visibleTrials: PreparedCondition } {
      const teamId = requireTeam(auth, action);
      return {
        teamId,
        visibleTrials: repository.visibleTrialsCondition(teamId, memberFilter(auth)),
      };
    },

    /**
     * Which of `participantIds` the caller may do `action` on, in one query, in the order
     * given (for batched calls over a table page, where one unknown or invisible id must
     * not fail the others). Throws 403 (role), 403 TEAM_INACTIVE.
     */
    async visibleParticipantIds(
      auth: AuthContext,
      participantIds: readonly number[],
      action: Action,
    ): Promise<{ teamId: number; participantIds: number[] }> {
      const teamId = requireTeam(auth, action);
      const found = new Set(
        await repository.visibleParticipantIds(
          repository.db,
          teamId,
          participantIds.filter(isDbId),
          memberFilter(auth),
        ),
      );
      return { teamId, participantIds: participantIds.filter((id) => found.has(id)) };
    },

    /**
     * The ids of every trial of the selected team the caller may do `action` on, ascending
     * (for lists and bulk work: filter your query with them). Throws 403 (role), 403
     * TEAM_INACTIVE.
     */
    async visibleTrialIds(
      auth: AuthContext,
      action: Action,
      options: Pick<AccessOptions, 'tx'> = {},
    ): Promise<{ teamId: number; trialIds: number[] }> {
      const teamId = requireTeam(auth, action);
      const trialIds = await repository.visibleTrialIds(
        options.tx ?? repository.db,
        teamId,
        memberFilter(auth),
      );
      return { teamId, trialIds };
    },

    /**
     * Locks the team row for the rest of `tx` and answers its limits (undefined for an
     * unknown team). Every change to a team's trials or participants takes this lock first,
     * so limit checks, code choices and recounts see every committed row and no concurrent one.
     */
    lockTeam(tx: DbOrTx, teamId: number) {
      return repository.lockTeam(tx, teamId);
    },
  };
}

export type AccessService = ReturnType<typeof createAccessService>;

const teamNotFound = () => AppError.notFound('Team not found.');

/** Admin and Sys_Admin see every trial of the team; User and Viewer the ones they are trial users of (decision 0009). */
function seesAllTrials(auth: AuthContext): boolean {
  return can(auth.role, 'trial.viewAll');
}
