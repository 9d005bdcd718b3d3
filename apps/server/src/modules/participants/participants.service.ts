import {
  ERROR_REASONS,
  LIMITS,
  PAGING_MESSAGES,
  PARTICIPANT_MESSAGES,
  PARTICIPANT_SUCCESS,
  type AddParticipantInput,
  type AddParticipantResponse,
  type Action,
  type AllowedDevice,
  type ChangeCodeInput,
  type DeleteParticipantInput,
  type ListQuery,
  type Paged,
  type Participant,
  type PARTICIPANT_LIST_SORT_COLUMNS,
  type ParticipantRaw,
  type SupportedDevice,
  type UpdateParticipantInput,
} from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import { uniqueViolationConstraint } from '../../lib/db-errors';
import { isDbId } from '../../lib/db-ids';
import { AppError } from '../../lib/errors';
import { listAnswer } from '../../lib/paging';
import type { Meta } from '../../lib/request-meta';
import {
  participantNotFound,
  trialNotFound,
  type AccessService,
  type TrialRef,
} from '../access/access.service';
import type { AuthContext } from '../auth/session-context';
import type { TeamAdminService } from '../team-admin/team-admin.service';
import type { TeamsService } from '../teams/teams.service';
import type { ReadingsService } from '../sync/readings.service';
import type {
  ParticipantListRow,
  ParticipantRow,
  ParticipantsRepository,
} from './participants.repository';

type ParticipantListSort = (typeof PARTICIPANT_LIST_SORT_COLUMNS)[number];

/** Unique constraints whose violation is a user error (409), never a server error. */
const CONSTRAINTS = {
  codeSuffix: 'participants_trial_code_suffix_unique',
  teamEmail: 'participants_team_email_unique',
} as const;

/** Auto-assigned suffixes are zero-padded to this many digits ("001", "002", …). */
const AUTO_SUFFIX_DIGITS = 3;

const codeChangeNotFound = () => AppError.notFound(PARTICIPANT_MESSAGES.codeChangeNotFound);

/** The participant fields the caller's team hides (teams.hidden_fields, read on every request). */
const hiddenFieldsOf = (auth: AuthContext) => new Set(auth.user.hiddenFields);

/**
 * Participants of the selected team's trials (access spec §7 /trialParticipants,
 * /participant, /teamAllowedDevices, /teamSupportedDevices; decision 0014). Every call is
 * scoped to the caller's selected team, which must be Active, and to the trials the caller
 * can see; anything else answers 404. Hidden fields never leave the server. Role checks
 * are the routes' guards.
 */
export function createParticipantsService(deps: {
  repository: ParticipantsRepository;
  access: Pick<
    AccessService,
    | 'requireTeam'
    | 'requireOwnTeam'
    | 'requireTrial'
    | 'requireParticipant'
    | 'lockTeam'
    | 'trialScope'
  >;
  /**
   * Runs before a participant is deleted, after the caller's access is checked (device
   * linking revokes the participant's provider grants there).
   */
  beforeDelete?: (teamId: number, participantId: number, meta: Meta) => Promise<void>;
  /** Participant codes start with the trial's code (the trials module owns trials). */
  /** Stored readings (sync module): a deletion's audit row counts what it takes with it. */
  readings: Pick<ReadingsService, 'countOfParticipant'>;
  /** The trials module's code lookup (trials call back into participants: no import either way). */
  trials: {
    trialCode(q: DbOrTx, trial: { id: number; teamId: number }): Promise<string | undefined>;
  };
  /** The team's participant counter (the teams module owns the teams table). */
  teams: Pick<TeamsService, 'setCounts'>;
  /** The team's allowed brands and supported devices (the team-admin module owns them). */
  teamAdmin: Pick<TeamAdminService, 'allowedBrandsOf' | 'supportedDevicesOf'>;
}) {
  const { repository, access, trials, teams, teamAdmin } = deps;

  /** Recounts the team's participants (under the team row lock) into its counter. */
  async function recountParticipants(tx: DbOrTx, teamId: number): Promise<number | undefined> {
    const n = await repository.countTeamParticipants(tx, teamId);
    return (await teams.setCounts(tx, teamId, { participants: n }))?.participants;
  }

  /** The visible trial with its participant-code prefix. */
  async function trialWithCode(
    q: DbOrTx,
    trial: TrialRef,
    notFound: () => AppError = trialNotFound,
  ) {
    const code = await trials.trialCode(q, trial);
    if (code === undefined) throw notFound();
    return { ...trial, trialCode: code };
  }

  /** The participant's row once access allows `action` on it; `lock` locks it for a change. */
  async function participantRow(
    q: DbOrTx,
    auth: AuthContext,
    participantId: number,
    action: Action,
    options: { lock?: boolean; notFound?: () => AppError } = {},
  ): Promise<ParticipantRow> {
    const notFound = options.notFound ?? participantNotFound;
    const ref = await access.requireParticipant(auth, participantId, action, { tx: q, notFound });
    const row = await repository.findParticipant(q, ref.teamId, ref.id, options.lock);
    if (!row) throw notFound();
    return row;
  }

  /** The next free suffix of the trial: the largest all-digit suffix + 1, zero-padded. */
  async function nextSuffix(tx: DbOrTx, trialId: number): Promise<string> {
    const next = (await repository.maxNumericSuffix(tx, trialId)) + 1;
    if (String(next).length <= LIMITS.codeSuffixMaxLength) return padSuffix(next);
    // Only when someone used a 12-digit suffix: take the lowest free number instead.
    const taken = await repository.suffixes(tx, trialId);
    for (let n = 1; ; n += 1) if (!taken.has(padSuffix(n))) return padSuffix(n);
  }

  return {
    /** The trial's participants, hidden fields left out. Throws 404 "Trial not found.", 403 TEAM_INACTIVE. */
    async list(
      auth: AuthContext,
      trialId: number,
      query: ListQuery<ParticipantListSort>,
    ): Promise<Participant[] | Paged<Participant>> {
      const { visibleTrials } = access.trialScope(auth, 'participant.view');
      const hidden = hiddenFieldsOf(auth);
      if (query.sort && hidden.has(query.sort.by)) {
        throw new AppError(400, PAGING_MESSAGES.sortBy, {
          displayToUser: true,
          reason: ERROR_REASONS.validation,
          errors: [{ field: 'sortBy', message: PAGING_MESSAGES.sortBy }],
        });
      }
      // One query; only an empty answer asks whether the trial is there for the caller (404).
      const page = isDbId(trialId)
        ? await repository.listParticipantsPage(query, trialId, visibleTrials, hidden)
        : { rows: [], total: 0 };
      if (page.total === 0) await access.requireTrial(auth, trialId, 'participant.view');
      return listAnswer(query, page, (row) => presentParticipant(row, hidden));
    },

    /** The trial's participant-code prefix. Throws 404 "Trial not found.". */
    async trialCode(auth: AuthContext, trialId: number): Promise<{ trial_code: string }> {
      const trial = await access.requireTrial(auth, trialId, 'participant.view');
      return { trial_code: (await trialWithCode(repository.db, trial)).trialCode };
    },

    /** One participant, hidden fields left out. Throws 404 (spec's not-found text). */
    async get(auth: AuthContext, participantId: number): Promise<Participant> {
      const row = await participantRow(repository.db, auth, participantId, 'participant.view');
      return presentParticipant(row, hiddenFieldsOf(auth));
    },

    /** The stored record (Sys_Admin route), still without the fields the team hides. Throws 404. */
    async raw(auth: AuthContext, participantId: number): Promise<ParticipantRaw> {
      const row = await participantRow(repository.db, auth, participantId, 'participant.viewRaw');
      return presentRaw(row, hiddenFieldsOf(auth));
    },

    /**
     * Adds a participant to a trial the caller can see. Under the team row lock: refuses 409
     * when the team's max_participants is reached, assigns the next free suffix when none
     * is given, inserts (the unique indexes decide code and email clashes: 409 with the
     * spec's texts), recounts the team's participants and writes the audit row.
     * Throws 404 "Trial not found.", 409.
     */
    async add(
      auth: AuthContext,
      input: AddParticipantInput,
      meta: Meta,
    ): Promise<AddParticipantResponse> {
      const teamId = access.requireTeam(auth, 'participant.create');
      const created = await withConflictMessages(() =>
        repository.transaction(async (tx) => {
          const team = await access.lockTeam(tx, teamId);
          if (!team) throw trialNotFound();
          const trial = await trialWithCode(
            tx,
            await access.requireTrial(auth, input.trialId, 'participant.create', { tx }),
          );
          if (
            team.maxParticipants !== null &&
            (await repository.countTeamParticipants(tx, teamId)) >= team.maxParticipants
          ) {
            throw new AppError(409, PARTICIPANT_MESSAGES.maxParticipantsReached, {
              reason: 'MAX_PARTICIPANTS_REACHED',
            });
          }
          const suffix = input.codeSuffix ?? (await nextSuffix(tx, trial.id));
          const row = await repository.insertParticipant(tx, {
            teamId,
            trialId: trial.id,
            participantCode: `${trial.trialCode}-${suffix}`,
            participantCodeSuffix: suffix,
            email: input.email ?? null,
            gender: input.gender,
            age: input.age ?? null,
            notes: input.notes ?? null,
          });
          const teamParticipantCount = await recountParticipants(tx, teamId);
          await recordAudit(tx, {
            action: 'participant.create',
            entityType: 'participant',
            entityId: row.id,
            actorUserId: auth.userId,
            teamId,
            requestId: meta.requestId,
            after: {
              ...auditImage(row),
              suffixAssigned: input.codeSuffix === undefined,
              teamParticipantCount,
            },
          });
          return row;
        }),
      );
      return {
        participantId: created.id,
        participant_code: created.participantCode,
        participant_code_suffix: created.participantCodeSuffix,
      };
    },

    /**
     * Edits email, gender, age and notes (never the code: see `changeCode`). An omitted
     * email, age or notes is kept; blank clears it; a field the team hides is only replaced
     * by a non-blank value. Throws 404 (spec text), 409 email taken.
     */
    async update(
      auth: AuthContext,
      input: UpdateParticipantInput,
      meta: Meta,
    ): Promise<{ message: string }> {
      const teamId = access.requireTeam(auth, 'participant.update');
      const hidden = hiddenFieldsOf(auth);
      await withConflictMessages(() =>
        repository.transaction(async (tx) => {
          await access.lockTeam(tx, teamId);
          const before = await participantRow(tx, auth, input.id, 'participant.update', {
            lock: true,
          });
          const next = {
            email: keepOrReplace(before.email, input.email, hidden.has('email')),
            gender: input.gender,
            age: input.age === undefined ? before.age : input.age,
            notes: keepOrReplace(before.notes, input.notes, hidden.has('notes')),
          };
          const changed = (Object.keys(next) as (keyof typeof next)[]).filter(
            (field) => next[field] !== before[field],
          );
          if (changed.length === 0) return;
          const after = await repository.updateParticipant(tx, teamId, input.id, next);
          if (!after) throw participantNotFound();
          await recordAudit(tx, {
            action: 'participant.update',
            entityType: 'participant',
            entityId: input.id,
            actorUserId: auth.userId,
            teamId,
            requestId: meta.requestId,
            before: auditImage(before),
            after: { ...auditImage(after), changed },
          });
        }),
      );
      return { message: PARTICIPANT_SUCCESS.updated };
    },

    /**
     * Changes the code suffix of a participant of the given trial; the prefix stays the
     * trial's code. Throws 404 "Code change failed: participant or trial not found.", 409
     * "Participant code is already taken in this trial." (the old code is kept).
     */
    async changeCode(
      auth: AuthContext,
      trialId: number,
      participantId: number,
      input: ChangeCodeInput,
      meta: Meta,
    ): Promise<{ participant_code: string }> {
      const teamId = access.requireTeam(auth, 'participant.update');
      return withConflictMessages(() =>
        repository.transaction(async (tx) => {
          await access.lockTeam(tx, teamId);
          const trial = await trialWithCode(
            tx,
            await access.requireTrial(auth, trialId, 'participant.update', {
              tx,
              notFound: codeChangeNotFound,
            }),
            codeChangeNotFound,
          );
          const before = await participantRow(tx, auth, participantId, 'participant.update', {
            lock: true,
            notFound: codeChangeNotFound,
          });
          if (before.trialId !== trial.id) throw codeChangeNotFound();
          if (before.participantCodeSuffix === input.suffix)
            return { participant_code: before.participantCode };
          const after = await repository.updateParticipant(tx, teamId, participantId, {
            participantCode: `${trial.trialCode}-${input.suffix}`,
            participantCodeSuffix: input.suffix,
          });
          if (!after) throw codeChangeNotFound();
          await recordAudit(tx, {
            action: 'participant.code_change',
            entityType: 'participant',
            entityId: participantId,
            actorUserId: auth.userId,
            teamId,
            requestId: meta.requestId,
            before: {
              participantCode: before.participantCode,
              participantCodeSuffix: before.participantCodeSuffix,
            },
            after: {
              participantCode: after.participantCode,
              participantCodeSuffix: after.participantCodeSuffix,
            },
          });
          return { participant_code: after.participantCode };
        }),
      );
    },

    /**
     * Deletes a participant; the database cascades to their device connections, synced
     * device data, weekly summaries and consent links (decision 0014). Recounts the team's
     * participants; the audit row keeps the before image and what went with it. Throws 404.
     */
    async remove(
      auth: AuthContext,
      input: DeleteParticipantInput,
      meta: Meta,
    ): Promise<{ message: string }> {
      const teamId = access.requireTeam(auth, 'participant.delete');
      if (deps.beforeDelete) {
        await access.requireParticipant(auth, input.id, 'participant.delete');
        await deps.beforeDelete(teamId, input.id, meta);
      }
      await repository.transaction(async (tx) => {
        await access.lockTeam(tx, teamId);
        const before = await participantRow(tx, auth, input.id, 'participant.delete', {
          lock: true,
        });
        // What the deletion takes with it (the foreign keys cascade); readings counted by their owner.
        const dependents = {
          deviceConnections: await repository.countConnections(tx, teamId, input.id),
          deviceDataPoints: await deps.readings.countOfParticipant(tx, teamId, input.id),
        };
        if (!(await repository.deleteParticipant(tx, teamId, input.id)))
          throw participantNotFound();
        const teamParticipantCount = await recountParticipants(tx, teamId);
        await recordAudit(tx, {
          action: 'participant.delete',
          entityType: 'participant',
          entityId: input.id,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before: { ...auditImage(before), ...dependents },
          after: { teamParticipantCount },
        });
      });
      return { message: PARTICIPANT_SUCCESS.deleted };
    },

    /**
     * Step one of deleting a trial with `cascade` (trials service): revokes every
     * participant's provider access at the providers (decision 0019), as deleting one
     * participant does. Runs outside a transaction (provider calls); a failed revocation
     * is audited by the devices module and does not stop the deletion. Throws 404.
     */
    async revokeTrialParticipants(auth: AuthContext, trialId: number, meta: Meta): Promise<void> {
      const { teamId } = await access.requireTrial(auth, trialId, 'trial.delete');
      if (!deps.beforeDelete) return;
      for (const participantId of await repository.participantIdsOfTrial(
        repository.db,
        teamId,
        trialId,
      )) {
        await deps.beforeDelete(teamId, participantId, meta);
      }
    },

    /** How many participants the trial has (inside the trial deletion's transaction). */
    async countInTrial(tx: DbOrTx, auth: AuthContext, trialId: number): Promise<number> {
      const { teamId } = await access.requireTrial(auth, trialId, 'trial.delete', { tx });
      return repository.countTrialParticipants(tx, teamId, trialId);
    },

    /**
     * Step two of deleting a trial with `cascade`, inside its transaction (the team row is
     * locked): deletes the trial's participants and recounts the team's participants.
     * Answers what was deleted (ids and codes) and the new count.
     */
    async removeAllOfTrial(tx: DbOrTx, auth: AuthContext, trialId: number) {
      const { teamId } = await access.requireTrial(auth, trialId, 'trial.delete', { tx });
      const removed = await repository.deleteParticipantsOfTrial(tx, teamId, trialId);
      const teamParticipantCount = await recountParticipants(tx, teamId);
      return { removed, teamParticipantCount };
    },

    /** The brands the caller's own team allows; another team id answers 404. */
    async allowedDevices(auth: AuthContext, teamIdParam: number): Promise<AllowedDevice[]> {
      const teamId = access.requireOwnTeam(auth, teamIdParam, 'participant.view');
      return teamAdmin.allowedBrandsOf(teamId);
    },

    /** The catalog devices the caller's own team supports; another team id answers 404. */
    async supportedDevices(auth: AuthContext, teamIdParam: number): Promise<SupportedDevice[]> {
      const teamId = access.requireOwnTeam(auth, teamIdParam, 'participant.view');
      return teamAdmin.supportedDevicesOf(teamId);
    },
  };
}

export type ParticipantsService = ReturnType<typeof createParticipantsService>;

const padSuffix = (n: number) => String(n).padStart(AUTO_SUFFIX_DIGITS, '0');

/**
 * The stored value after an edit: omitted keeps it; for a field the team hides, blank
 * keeps it too (the user cannot see what is stored); otherwise blank (null) clears it.
 */
function keepOrReplace(
  stored: string | null,
  sent: string | null | undefined,
  hidden: boolean,
): string | null {
  if (sent === undefined) return stored;
  if (sent === null && hidden) return stored;
  return sent;
}

/**
 * Runs a write and turns a lost race on a unique index into the spec's 409 (by constraint
 * name). Nothing of the database error reaches the client.
 */
async function withConflictMessages<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    const constraint = uniqueViolationConstraint(error);
    if (constraint === CONSTRAINTS.codeSuffix)
      throw new AppError(409, PARTICIPANT_MESSAGES.codeTaken, { reason: 'PARTICIPANT_CODE_TAKEN' });
    if (constraint === CONSTRAINTS.teamEmail)
      throw new AppError(409, PARTICIPANT_MESSAGES.emailTaken, {
        reason: 'PARTICIPANT_EMAIL_TAKEN',
      });
    throw error;
  }
}

function presentParticipant(row: ParticipantListRow, hidden: ReadonlySet<string>): Participant {
  const participant: Participant = {
    id: row.id,
    participant_code: row.participantCode,
    participant_code_suffix: row.participantCodeSuffix,
    gender: row.gender,
    age: row.age,
    notes: hidden.has('notes') ? null : row.notes,
    trialId: row.trialId,
    created_at: row.createdAt.toISOString(),
  };
  if (!hidden.has('email')) participant.email = row.email;
  return participant;
}

function presentRaw(row: ParticipantRow, hidden: ReadonlySet<string>): ParticipantRaw {
  const raw: ParticipantRaw = {
    id: row.id,
    team_id: row.teamId,
    trial_id: row.trialId,
    participant_code: row.participantCode,
    participant_code_suffix: row.participantCodeSuffix,
    gender: row.gender,
    age: row.age,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    hidden_fields: [...hidden].sort(),
  };
  if (!hidden.has('email')) raw.email = row.email;
  if (!hidden.has('notes')) raw.notes = row.notes;
  return raw;
}

/**
 * What the audit log keeps of a participant: ids, code and the de-identified fields. The
 * email and the free-text notes are only marked (present or not), because audit rows can
 * never be changed or erased (decision 0014).
 */
function auditImage(row: ParticipantRow) {
  return {
    participantId: row.id,
    trialId: row.trialId,
    participantCode: row.participantCode,
    participantCodeSuffix: row.participantCodeSuffix,
    gender: row.gender,
    age: row.age,
    hasEmail: row.email !== null,
    hasNotes: row.notes !== null,
  };
}
