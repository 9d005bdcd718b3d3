import {
  TRIAL_MESSAGES,
  type CreateTrialInput,
  type DeleteTrialInput,
  type ListQuery,
  type Paged,
  type Trial,
  type TRIAL_LIST_SORT_COLUMNS,
  type UpdateTrialInput,
} from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import { AppError } from '../../lib/errors';
import { listAnswer } from '../../lib/paging';
import { trialNotFound, type AccessService } from '../access/access.service';
import type { AuthContext } from '../auth/session-context';
import type { Meta } from '../../lib/request-meta';
import type { ParticipantsService } from '../participants/participants.service';
import type { TeamsService } from '../teams/teams.service';
import type { TrialsRepository } from './trials.repository';

type TrialListSort = (typeof TRIAL_LIST_SORT_COLUMNS)[number];

/** Answers of the trial calls (the spec leaves them "not shown"). */
export const TRIAL_SUCCESS = {
  created: 'The trial has been added.',
  updated: 'The trial has been updated.',
  deleted: 'The trial has been deleted.',
} as const;

/** Participant-code prefixes: upper-case letters and digits, at most 12 characters. */
export const TRIAL_CODE_MAX_LENGTH = 12;

/**
 * Trials of the selected team (access spec §7 /userTrials). Every call asks the access
 * module first (selected team Active, trial visible to the caller); role checks are also
 * the routes' guards.
 */
export function createTrialsService(deps: {
  repository: TrialsRepository;
  access: Pick<
    AccessService,
    'requireTeam' | 'requireTrial' | 'visibleTrialIds' | 'trialScope' | 'lockTeam'
  >;
  /** A cascade deletes the trial's participants through their own module (decision 0019). */
  participants: Pick<
    ParticipantsService,
    'revokeTrialParticipants' | 'countInTrial' | 'removeAllOfTrial'
  >;
  /** The team's trial counter (the teams module owns the teams table). */
  teams: Pick<TeamsService, 'setCounts'>;
}) {
  const { repository, access, participants, teams } = deps;

  /** Recounts the team's trials (under the team row lock) into its counter. */
  const recountTrials = async (tx: DbOrTx, teamId: number) =>
    teams.setCounts(tx, teamId, { trials: await repository.countTrials(tx, teamId) });

  return {
    /**
     * The trials the caller may see, newest first unless sorted; a page with the total when
     * the query names one (decision 0040). One query. Throws 403 TEAM_INACTIVE.
     */
    async list(
      auth: AuthContext,
      query: ListQuery<TrialListSort>,
    ): Promise<Trial[] | Paged<Trial>> {
      const { teamId, visibleTrials } = access.trialScope(auth, 'trial.view');
      return listAnswer(
        query,
        await repository.listTrials(query, visibleTrials, teamId),
        presentTrial,
      );
    },

    /**
     * Adds a trial owned by the caller, who also becomes its first trial user. Under a lock
     * on the team row: refuses 409 when the team's max_trials is reached or the Trial
     * Number is taken; generates the participant-code prefix; recounts the team's trials.
     */
    async create(
      auth: AuthContext,
      input: CreateTrialInput,
      meta: Meta,
    ): Promise<{ trialId: number; message: string }> {
      const teamId = access.requireTeam(auth, 'trial.create');
      const trial = await repository.transaction(async (tx) => {
        const team = await access.lockTeam(tx, teamId);
        if (!team) throw trialNotFound();
        const existing = await repository.countTrials(tx, teamId);
        if (team.maxTrials !== null && existing >= team.maxTrials)
          throw AppError.conflict(TRIAL_MESSAGES.maxTrialsReached);
        if (await repository.trialNumberTaken(tx, teamId, input.trialNumber)) {
          throw AppError.conflict(TRIAL_MESSAGES.duplicateNumber);
        }
        const trialCode = uniqueTrialCode(
          input.trialNumber,
          await repository.trialCodes(tx, teamId),
        );
        const created = await repository.insertTrial(tx, {
          teamId,
          trialNumber: input.trialNumber,
          trialName: input.trialName,
          trialNotes: input.trialNotes,
          trialCode,
          ownerUserId: auth.userId,
        });
        await repository.insertTrialUser(tx, { teamId, trialId: created.id, userId: auth.userId });
        const counts = await recountTrials(tx, teamId);
        await recordAudit(tx, {
          action: 'trial.create',
          entityType: 'trial',
          entityId: created.id,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          after: {
            ...auditImage(created),
            trialUsers: [auth.userId],
            teamTrialCount: counts?.trials,
          },
        });
        return created;
      });
      return { trialId: trial.id, message: TRIAL_SUCCESS.created };
    },

    /**
     * Edits number, name and notes of a trial the caller can see (a User only their own
     * trials). The participant-code prefix is kept: participant codes already carry it.
     * Throws 404 (unknown, other team, not visible), 409 Trial Number taken.
     */
    async update(
      auth: AuthContext,
      input: UpdateTrialInput,
      meta: Meta,
    ): Promise<{ message: string }> {
      const { teamId } = await access.requireTrial(auth, input.trialId, 'trial.update');
      await repository.transaction(async (tx) => {
        await access.lockTeam(tx, teamId);
        const before = await repository.lockTrial(tx, teamId, input.trialId);
        if (!before) throw trialNotFound();
        if (await repository.trialNumberTaken(tx, teamId, input.trialNumber, input.trialId)) {
          throw AppError.conflict(TRIAL_MESSAGES.duplicateNumber);
        }
        const after = await repository.updateTrial(tx, teamId, input.trialId, {
          trialNumber: input.trialNumber,
          trialName: input.trialName,
          trialNotes: input.trialNotes,
        });
        if (!after) throw trialNotFound();
        await recordAudit(tx, {
          action: 'trial.update',
          entityType: 'trial',
          entityId: input.trialId,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before: auditImage(before),
          after: auditImage(after),
        });
      });
      return { message: TRIAL_SUCCESS.updated };
    },

    /**
     * The participant-code prefix of a visible trial (the participants module builds codes
     * on it). Undefined for another team's trial.
     */
    trialCode: (q: DbOrTx, trial: { id: number; teamId: number }) =>
      repository.trialCode(q, trial.teamId, trial.id),

    /**
     * Deletes a trial with its trial users. A trial with participants is refused (409)
     * unless `cascade` confirms deleting them too: then every participant's provider access
     * is revoked at the providers first (decision 0019), and the participants module
     * deletes them (the database also removes their device connections and synced data).
     * Recounts the team's trials and participants; the audit row keeps the before image.
     * Throws 404 for another team's trial.
     */
    async remove(
      auth: AuthContext,
      input: DeleteTrialInput,
      meta: Meta,
    ): Promise<{ message: string }> {
      const teamId = access.requireTeam(auth, 'trial.delete');
      if (input.cascade) await participants.revokeTrialParticipants(auth, input.trialId, meta);
      await repository.transaction(async (tx) => {
        await access.lockTeam(tx, teamId);
        await access.requireTrial(auth, input.trialId, 'trial.delete', { tx });
        const before = await repository.lockTrial(tx, teamId, input.trialId);
        if (!before) throw trialNotFound();
        const participantCount = await participants.countInTrial(tx, auth, input.trialId);
        if (participantCount > 0 && !input.cascade) {
          throw new AppError(409, TRIAL_MESSAGES.hasParticipants, {
            reason: 'TRIAL_HAS_PARTICIPANTS',
          });
        }
        const cascaded =
          participantCount > 0
            ? await participants.removeAllOfTrial(tx, auth, input.trialId)
            : undefined;
        const removedUsers = await repository.deleteTrialUsers(tx, teamId, input.trialId);
        if (!(await repository.deleteTrial(tx, teamId, input.trialId))) throw trialNotFound();
        const counts = await recountTrials(tx, teamId);
        await recordAudit(tx, {
          action: 'trial.delete',
          entityType: 'trial',
          entityId: input.trialId,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before: {
            ...auditImage(before),
            trialUsers: removedUsers.map((row) => row.userId),
            participants: cascaded?.removed ?? [],
          },
          after: {
            cascade: input.cascade,
            teamTrialCount: counts?.trials,
            teamParticipantCount: counts?.participants,
          },
        });
      });
      return { message: TRIAL_SUCCESS.deleted };
    },
  };
}

export type TrialsService = ReturnType<typeof createTrialsService>;

/**
 * The participant-code prefix for a Trial Number: its letters and digits upper-cased, at
 * most 12 characters ("TRIAL" when it has none), made unique in the team with "_2", "_3", …
 * (shortening the base so the whole stays within 12).
 */
export function uniqueTrialCode(trialNumber: string, taken: ReadonlySet<string>): string {
  const base =
    trialNumber
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '')
      .slice(0, TRIAL_CODE_MAX_LENGTH) || 'TRIAL';
  if (!taken.has(base)) return base;
  for (let n = 2; ; n += 1) {
    const suffix = `_${n}`;
    const candidate = base.slice(0, TRIAL_CODE_MAX_LENGTH - suffix.length) + suffix;
    if (!taken.has(candidate)) return candidate;
  }
}

type TrialRow = {
  id: number;
  teamId: number;
  trialNumber: string;
  trialName: string;
  trialNotes: string | null;
  ownerEmail: string | null;
  creationDate: Date;
};

function presentTrial(row: TrialRow): Trial {
  return {
    trialId: row.id,
    trialNumber: row.trialNumber,
    trialName: row.trialName,
    trialNotes: row.trialNotes ?? '',
    trialOwnerEmail: row.ownerEmail,
    teamId: row.teamId,
    creationDate: row.creationDate.toISOString(),
  };
}

function auditImage(row: {
  id: number;
  teamId: number;
  trialNumber: string;
  trialName: string;
  trialNotes: string | null;
  trialCode: string;
  ownerUserId: number;
}) {
  return {
    trialId: row.id,
    teamId: row.teamId,
    trialNumber: row.trialNumber,
    trialName: row.trialName,
    trialNotes: row.trialNotes,
    trialCode: row.trialCode,
    ownerUserId: row.ownerUserId,
  };
}
