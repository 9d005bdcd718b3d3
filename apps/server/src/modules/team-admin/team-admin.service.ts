import { z } from 'zod';
import { TEAM_MESSAGES, emailSchema, newPasswordSchema, type TeamInput } from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import { AppError } from '../../lib/errors';
import type { PasswordHasher } from '../../lib/passwords';
import type { DeviceBrand } from '../../db/schema';
import type { AccountsService } from '../auth/accounts.service';
import type { TeamsService, TeamValues } from '../teams/teams.service';
import type { TeamAdminRepository, TeamRow } from './team-admin.repository';
import { isUniqueViolation } from '../../lib/db-errors';
import { MAX_DB_ID } from '../../lib/db-ids';

/** Messages of team administration that the shared team messages do not cover. */
export const TEAM_ADMIN_MESSAGES = {
  notFound: 'Team not found.',
  unknownDevice: 'Unknown device in the device catalog.',
  created: 'The team has been created.',
  updated: 'The team has been updated.',
  emailTaken: 'An account with this email already exists.',
  teamFull: 'This team has reached its maximum number of users.',
  nameRequired: 'First and last name are required (at most 50 characters).',
  valueTooLarge: 'The value is too large.',
} as const;

/** Who makes a change: a signed-in Sys_Admin (API) or the operator at the command line (no user). */
export type TeamAdminActor = {
  userId: number | null;
  requestId: string | null;
  via: 'api' | 'cli';
};

/** The full team record as the administration API answers it (access spec §3, full team record). */
export type TeamRecord = ReturnType<typeof presentTeam>;

const sysAdminInputSchema = z.object({
  email: emailSchema,
  firstName: z
    .string()
    .trim()
    .min(1, TEAM_ADMIN_MESSAGES.nameRequired)
    .max(50, TEAM_ADMIN_MESSAGES.nameRequired),
  lastName: z
    .string()
    .trim()
    .min(1, TEAM_ADMIN_MESSAGES.nameRequired)
    .max(50, TEAM_ADMIN_MESSAGES.nameRequired),
  password: newPasswordSchema,
});
export type SysAdminInput = z.input<typeof sysAdminInputSchema>;

/**
 * Team administration: teams with every field of the team record, their allowed brands
 * and supported devices, and the first system administrator of a fresh database. The spec
 * has no such calls; see docs/decisions/0010-team-administration.md. Every change is
 * audited with before and after images in its own transaction.
 */
export function createTeamAdminService(deps: {
  repository: TeamAdminRepository;
  hasher: PasswordHasher;
  /** New accounts (the auth module owns users and credentials). */
  accounts: Pick<AccountsService, 'createAccount'>;
  /** Team records, members and their counter (the teams module owns teams and team_user_mappings). */
  teams: Pick<TeamsService, 'createTeam' | 'updateTeam' | 'lockSeats' | 'addMember'>;
}) {
  const { repository, hasher, accounts, teams } = deps;
  const action = (actor: TeamAdminActor, name: string) =>
    actor.via === 'cli' ? `cli.${name}` : name;
  const notFound = () => AppError.notFound(TEAM_ADMIN_MESSAGES.notFound);

  async function checkDevices(
    tx: Parameters<typeof repository.existingCatalogIds>[0],
    ids: readonly number[],
  ) {
    const unknown = ids.filter((id) => id > MAX_DB_ID);
    const existing = await repository.existingCatalogIds(
      tx,
      ids.filter((id) => id <= MAX_DB_ID),
    );
    if (unknown.length > 0 || ids.some((id) => !existing.has(id))) {
      throw AppError.badRequest(TEAM_ADMIN_MESSAGES.unknownDevice, [
        { field: 'supported_device_ids', message: TEAM_ADMIN_MESSAGES.unknownDevice },
      ]);
    }
  }

  return {
    /**
     * The team's switched-on brands (in the brand enum's order), for the participant pages'
     * /teamAllowedDevices. No access check: the calling service checked the caller's team.
     */
    allowedBrandsOf(teamId: number) {
      return repository.activeBrandsOf(teamId);
    },

    /** The team's switched-on catalog devices (/teamSupportedDevices); no access check either. */
    supportedDevicesOf(teamId: number) {
      return repository.activeSupportedDevicesOf(teamId);
    },

    /** Every team with its full record. */
    async listTeams(): Promise<TeamRecord[]> {
      return (await repository.listTeams()).map(presentTeam);
    },

    /** One team's full record. Throws 404. */
    async getTeam(teamId: number): Promise<TeamRecord> {
      if (teamId > MAX_DB_ID) throw notFound();
      const found = await repository.findTeam(teamId);
      if (!found) throw notFound();
      return presentTeam(found);
    },

    deviceCatalog: () => repository.deviceCatalog(),

    /** Creates a team with its brands and devices. Throws 409 name taken, 400 unknown device. */
    async createTeam(actor: TeamAdminActor, input: TeamInput): Promise<{ team_id: number }> {
      checkRanges(input);
      const teamId = await repository
        .transaction(async (tx) => {
          if (await repository.teamNameTaken(tx, input.team_name))
            throw AppError.conflict(TEAM_MESSAGES.nameTaken);
          await checkDevices(tx, input.supported_device_ids);
          const id = await teams.createTeam(tx, teamValues(input));
          await repository.setAllowedBrands(tx, id, input.allowed_brands);
          await repository.setSupportedDevices(tx, id, input.supported_device_ids);
          const after = await repository.findTeam(id, { tx });
          await recordAudit(tx, {
            action: action(actor, 'team.create'),
            entityType: 'team',
            entityId: id,
            actorUserId: actor.userId,
            teamId: id,
            requestId: actor.requestId,
            after: after && presentTeam(after),
          });
          return id;
        })
        .catch(nameConflict);
      return { team_id: teamId };
    },

    /**
     * Replaces a team's record, allowed brands and supported devices (brands and devices
     * left out are switched off, not deleted). Counts (actual_num_of_*) are not editable.
     * Throws 404, 409 name taken, 400 unknown device.
     */
    async updateTeam(
      actor: TeamAdminActor,
      teamId: number,
      input: TeamInput,
    ): Promise<{ message: string }> {
      if (teamId > MAX_DB_ID) throw notFound();
      checkRanges(input);
      await repository
        .transaction(async (tx) => {
          const before = await repository.findTeam(teamId, { tx, lock: true });
          if (!before) throw notFound();
          if (await repository.teamNameTaken(tx, input.team_name, teamId))
            throw AppError.conflict(TEAM_MESSAGES.nameTaken);
          await checkDevices(tx, input.supported_device_ids);
          await teams.updateTeam(tx, teamId, teamValues(input));
          await repository.setAllowedBrands(tx, teamId, input.allowed_brands);
          await repository.setSupportedDevices(tx, teamId, input.supported_device_ids);
          const after = await repository.findTeam(teamId, { tx });
          await recordAudit(tx, {
            action: action(actor, 'team.update'),
            entityType: 'team',
            entityId: teamId,
            actorUserId: actor.userId,
            teamId,
            requestId: actor.requestId,
            before: presentTeam(before),
            after: after && presentTeam(after),
          });
        })
        .catch(nameConflict);
      return { message: TEAM_ADMIN_MESSAGES.updated };
    },

    /** A team id from "name or id" (command line). */
    async resolveTeam(nameOrId: string): Promise<number | undefined> {
      if (/^\d+$/.test(nameOrId) && Number(nameOrId) <= MAX_DB_ID) {
        const byId = await repository.findTeam(Number(nameOrId));
        if (byId) return byId.team.id;
      }
      return (await repository.findTeamByName(nameOrId))?.id;
    },

    /**
     * Creates a staff account with the Sys_Admin role in a team (its default team), e.g.
     * the first administrator of a fresh production database. The account sets up its
     * second factor at first sign-in. Throws 400 (invalid input), 404 team, 409 email
     * taken or team full.
     */
    async createSysAdmin(
      actor: TeamAdminActor,
      teamId: number,
      input: SysAdminInput,
    ): Promise<{ userId: number }> {
      const parsed = sysAdminInputSchema.safeParse(input);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw AppError.badRequest(issue.message, [
          { field: issue.path.join('.'), message: issue.message },
        ]);
      }
      const { firstName, lastName, password } = parsed.data;
      const email = parsed.data.email.toLowerCase();
      if (await repository.findUserByEmail(email))
        throw AppError.conflict(TEAM_ADMIN_MESSAGES.emailTaken);
      const passwordHash = await hasher.hash(password);
      const userId = await repository
        .transaction(async (tx) => {
          const seats = await teams.lockSeats(tx, teamId);
          if (!seats) throw notFound();
          if (seats.maxUsers !== null && seats.members >= seats.maxUsers)
            throw AppError.conflict(TEAM_ADMIN_MESSAGES.teamFull);
          const id = await accounts.createAccount(
            tx,
            { kind: 'staff', email, firstName, lastName },
            passwordHash,
          );
          await teams.addMember(tx, { userId: id, teamId, role: 'Sys_Admin', defaultTeam: true });
          await recordAudit(tx, {
            action: action(actor, 'user.create_sys_admin'),
            entityType: 'user',
            entityId: id,
            actorUserId: actor.userId,
            teamId,
            requestId: actor.requestId,
            after: { userId: id, email, firstName, lastName, teamId, role: 'Sys_Admin' },
          });
          return id;
        })
        .catch((error: unknown) => {
          if (isUniqueViolation(error)) throw AppError.conflict(TEAM_ADMIN_MESSAGES.emailTaken);
          throw error;
        });
      return { userId };
    },
  };
}

export type TeamAdminService = ReturnType<typeof createTeamAdminService>;

/**
 * What the shared schema leaves to the database: integer columns hold at most 2^31-1, the
 * rate numeric(10,2), and the subscription order is compared as instants (not as text, so
 * different offsets compare right). Throws 400 instead of letting the database fail.
 */
function checkRanges(input: TeamInput): void {
  const tooLarge = (field: string) =>
    AppError.badRequest(TEAM_ADMIN_MESSAGES.valueTooLarge, [
      { field, message: TEAM_ADMIN_MESSAGES.valueTooLarge },
    ]);
  for (const field of ['max_users', 'max_trials', 'max_participants', 'retention_days'] as const) {
    const value = input[field];
    if (typeof value === 'number' && value > MAX_DB_ID) throw tooLarge(field);
  }
  const rate = input.monthly_rate_per_participant;
  if (typeof rate === 'number' && rate >= 100_000_000)
    throw tooLarge('monthly_rate_per_participant');
  if (input.subscription_starts && input.subscription_ends) {
    if (new Date(input.subscription_starts) > new Date(input.subscription_ends)) {
      throw AppError.badRequest(TEAM_MESSAGES.endsBeforeStart, [
        { field: 'subscription_ends', message: TEAM_MESSAGES.endsBeforeStart },
      ]);
    }
  }
}

function teamValues(input: TeamInput): TeamValues {
  return {
    teamName: input.team_name,
    isActive: input.is_active,
    subscriptionStarts: input.subscription_starts ? new Date(input.subscription_starts) : null,
    subscriptionEnds: input.subscription_ends ? new Date(input.subscription_ends) : null,
    subscriptionType: input.subscription_type ?? null,
    maxUsers: input.max_users,
    maxTrials: input.max_trials,
    maxParticipants: input.max_participants,
    teamAdminEmail: input.team_admin_email?.toLowerCase() ?? null,
    teamAdminPhone: input.team_admin_phone ?? null,
    organization: input.organization ?? null,
    notes: input.notes ?? null,
    monthlyRatePerParticipant:
      input.monthly_rate_per_participant === null ||
      input.monthly_rate_per_participant === undefined
        ? null
        : input.monthly_rate_per_participant.toFixed(2),
    retentionDays: input.retention_days ?? null,
    storageLocation: input.storage_location ?? null,
    hiddenFields: [...new Set(input.hidden_fields)],
  };
}

function presentTeam({
  team,
  allowedBrands,
  supportedDeviceIds,
}: {
  team: TeamRow;
  allowedBrands: DeviceBrand[];
  supportedDeviceIds: number[];
}) {
  return {
    team_id: team.id,
    team_name: team.teamName,
    is_active: team.isActive,
    subscription_starts: team.subscriptionStarts?.toISOString() ?? null,
    subscription_ends: team.subscriptionEnds?.toISOString() ?? null,
    subscription_type: team.subscriptionType,
    max_users: team.maxUsers,
    actual_num_of_users: team.actualNumOfUsers,
    max_trials: team.maxTrials,
    actual_num_of_trials: team.actualNumOfTrials,
    max_participants: team.maxParticipants,
    actual_num_of_participants: team.actualNumOfParticipants,
    team_admin_email: team.teamAdminEmail,
    team_admin_phone: team.teamAdminPhone,
    organization: team.organization,
    notes: team.notes,
    monthly_rate_per_participant:
      team.monthlyRatePerParticipant === null ? null : Number(team.monthlyRatePerParticipant),
    retention_days: team.retentionDays,
    storage_location: team.storageLocation,
    hidden_fields: team.hiddenFields,
    allowed_brands: allowedBrands,
    supported_device_ids: supportedDeviceIds,
  };
}

/** A concurrent insert of the same team name loses on the unique index: answer 409 too. */
function nameConflict(error: unknown): never {
  if (isUniqueViolation(error)) throw AppError.conflict(TEAM_MESSAGES.nameTaken);
  throw error;
}
