import {
  SIGNUP_MESSAGES,
  type ApproveSignUpInput,
  type Role,
  type SignupInput,
} from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { hashToken, randomToken } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import type { PasswordHasher } from '../../lib/passwords';
import type { AccountsService } from '../auth/accounts.service';
import type { RequestMeta } from '../auth/auth.service';
import type { TeamsService } from '../teams/teams.service';
import type { AuthContext } from '../auth/session-context';
import type { SignupRepository } from './signup.repository';
import { isUniqueViolation } from '../../lib/db-errors';
import type { MailService } from '../mail/mail.service';

/** An invitation link works for 7 days. */
export const INVITATION_TTL_MS = 7 * 24 * 60 * 60 * 1000;

export const SIGNUP_ERRORS = {
  invalidLink: 'This sign-up link is invalid or has expired.',
  emailMismatch: 'The email address does not match the invitation.',
  duplicateEmail: 'An account with this email already exists.',
  teamFull: 'This team has reached its maximum number of users.',
  teamNotFound: 'The selected team does not exist.',
  alreadyMember: 'This user is already a member of the selected team.',
  participantAccount:
    'This email address belongs to a participant account and cannot be given a staff role.',
  inactiveAccount: 'The account with this email address is deactivated.',
} as const;

type Deps = {
  repository: SignupRepository;
  hasher: PasswordHasher;
  clock: Clock;
  mail: Pick<MailService, 'enqueue'>;
  /** Base of the links in mails, without a trailing slash. */
  publicUrl: string;
  /** New accounts (the auth module owns users and credentials). */
  accounts: Pick<AccountsService, 'createAccount'>;
  /** Team members and their counter (the teams module owns team_user_mappings). */
  teams: Pick<TeamsService, 'seats' | 'lockSeats' | 'addMember'>;
};

/**
 * Invitations (sign-up approval by a Sys_Admin) and staff sign-up from an invitation link.
 * What the new account gets (email, team, role) comes from the invitation only, never from
 * the sign-up form. See docs/decisions/0008-invitations.md.
 */
export function createSignupService(deps: Deps) {
  const { repository, hasher, clock, mail, accounts, teams } = deps;

  const invalidLink = () =>
    new AppError(400, SIGNUP_ERRORS.invalidLink, { displayToUser: true, reason: 'INVALID_TOKEN' });
  const conflict = (message: string) => new AppError(409, message, { displayToUser: true });

  /** Adds a team mapping within the team's max_users (locks the team row); throws 409 when full. */
  async function addToTeam(
    tx: DbOrTx,
    values: { userId: number; teamId: number; role: Role; defaultTeam: boolean },
  ) {
    const seats = await teams.lockSeats(tx, values.teamId);
    if (!seats) throw new AppError(400, SIGNUP_ERRORS.teamNotFound, { displayToUser: true });
    if (seats.maxUsers !== null && seats.members >= seats.maxUsers)
      throw conflict(SIGNUP_ERRORS.teamFull);
    await teams.addMember(tx, values);
  }

  return {
    /** Every team, for the approval page's team select. */
    listTeams: () => repository.listTeams(),

    /**
     * Sys_Admin approves a sign-up: emails a single-use 7-day invitation link carrying the
     * email, team and role. An existing staff account outside the team is added to it
     * directly and notified instead. Throws 400 unknown team, 409 already a member, team
     * full, participant or deactivated account. Returns the message for the admin; the
     * caller triggers mail delivery after the commit.
     */
    async approveSignUp(
      auth: AuthContext,
      input: ApproveSignUpInput,
      meta: RequestMeta,
    ): Promise<{ message: string }> {
      const email = input.email.trim().toLowerCase();
      const team = await repository.findTeam(input.teamId);
      if (!team) throw new AppError(400, SIGNUP_ERRORS.teamNotFound, { displayToUser: true });
      const now = clock.now();
      const existing = await repository.findUserByEmail(email);

      if (existing) {
        if (existing.accountType !== 'staff') throw conflict(SIGNUP_ERRORS.participantAccount);
        if (!existing.isActive) throw conflict(SIGNUP_ERRORS.inactiveAccount);
        if (await repository.isTeamMember(existing.id, team.id))
          throw conflict(SIGNUP_ERRORS.alreadyMember);
        await repository.transaction(async (tx) => {
          await addToTeam(tx, {
            userId: existing.id,
            teamId: team.id,
            role: input.role,
            defaultTeam: false,
          });
          await mail.enqueue(tx, {
            to: email,
            subject: `TrialPulse: you were added to the team ${team.teamName}`,
            text: addedToTeamMailText(team.teamName, input.role, deps.publicUrl),
            template: 'team-membership-added',
          });
          await recordAudit(tx, {
            action: 'auth.invitation.add_existing',
            entityType: 'team_user_mapping',
            entityId: `${existing.id}:${team.id}`,
            actorUserId: auth.userId,
            teamId: team.id,
            requestId: meta.requestId,
            after: { userId: existing.id, teamId: team.id, role: input.role },
          });
        });
        return {
          message: `${email} already has an account and was added to ${team.teamName} as ${input.role}.`,
        };
      }

      // Early, friendly refusal; sign-up enforces the limit again under a lock.
      const seats = await teams.seats(team.id);
      if (seats && seats.maxUsers !== null && seats.members >= seats.maxUsers)
        throw conflict(SIGNUP_ERRORS.teamFull);

      const token = randomToken();
      const expiresAt = new Date(now.getTime() + INVITATION_TTL_MS);
      await repository.transaction(async (tx) => {
        await repository.invalidateInvitations(tx, email, now);
        const invitationId = await repository.insertInvitation(tx, {
          tokenHash: hashToken(token),
          email,
          role: input.role,
          teamId: team.id,
          createdByUserId: auth.userId,
          createdAt: now,
          expiresAt,
        });
        await mail.enqueue(tx, {
          to: email,
          subject: 'TrialPulse: your invitation to sign up',
          text: invitationMailText(
            `${deps.publicUrl}/SignupValidation?token=${encodeURIComponent(token)}`,
            team.teamName,
            input.role,
          ),
          template: 'signup-invitation',
        });
        await recordAudit(tx, {
          action: 'auth.invitation.create',
          entityType: 'invitation',
          entityId: invitationId,
          actorUserId: auth.userId,
          teamId: team.id,
          requestId: meta.requestId,
          after: { email, teamId: team.id, role: input.role, expiresAt: expiresAt.toISOString() },
        });
      });
      return { message: `Sign-up approved. An invitation was sent to ${email}.` };
    },

    /** What a valid invitation grants. Throws 400 "This sign-up link is invalid or has expired." */
    async validateInvitation(token: string) {
      const invitation = await repository.findValidInvitation(hashToken(token), clock.now());
      if (!invitation) throw invalidLink();
      return {
        email: invitation.email,
        role: invitation.role,
        teamId: invitation.teamId,
        teamName: invitation.teamName,
      };
    },

    /**
     * Creates a staff account from an invitation: username = email, the invitation's team
     * and role (the default team), second factor still to be set up. The invitation is spent
     * in the same transaction. Throws 400 invalid link or email not the invited one, 409
     * duplicate email or team full.
     */
    async signup(input: SignupInput, meta: RequestMeta): Promise<void> {
      const tokenHash = hashToken(input.token);
      const email = input.email.trim().toLowerCase();
      const invitation = await repository.findValidInvitation(tokenHash, clock.now());
      if (!invitation) throw invalidLink();
      if (invitation.email !== email)
        throw new AppError(400, SIGNUP_ERRORS.emailMismatch, { displayToUser: true });
      if (await repository.findUserByEmail(email)) throw conflict(SIGNUP_ERRORS.duplicateEmail);

      const passwordHash = await hasher.hash(input.password);
      const now = clock.now();
      try {
        await repository.transaction(async (tx) => {
          const granted = await repository.consumeInvitation(tx, tokenHash, now);
          if (!granted || granted.email !== email) throw invalidLink();
          const userId = await accounts.createAccount(
            tx,
            {
              kind: 'staff',
              email,
              firstName: input.firstName,
              lastName: input.lastName,
              organization: input.organization ? input.organization : null,
            },
            passwordHash,
            now,
          );
          await addToTeam(tx, {
            userId,
            teamId: granted.teamId,
            role: granted.role,
            defaultTeam: true,
          });
          await recordAudit(tx, {
            action: 'auth.signup',
            entityType: 'user',
            entityId: userId,
            actorUserId: userId,
            teamId: granted.teamId,
            requestId: meta.requestId,
            after: {
              invitationId: granted.id,
              teamId: granted.teamId,
              role: granted.role,
              ip: meta.ip,
            },
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw conflict(SIGNUP_ERRORS.duplicateEmail);
        throw error;
      }
    },
  };
}

export type SignupService = ReturnType<typeof createSignupService>;

export const SIGNUP_SUCCESS = {
  success: true as const,
  message: SIGNUP_MESSAGES.success,
  data: { redirectTo: '/LoginPage' },
};

function invitationMailText(link: string, teamName: string, role: string): string {
  return [
    'Hello,',
    '',
    `You have been invited to join the team "${teamName}" on TrialPulse with the role ${role}.`,
    'To create your account, open this link within 7 days:',
    '',
    link,
    '',
    'The link works once. If you did not expect this invitation, ignore this message.',
    '',
    'TrialPulse',
  ].join('\n');
}

function addedToTeamMailText(teamName: string, role: string, publicUrl: string): string {
  return [
    'Hello,',
    '',
    `Your TrialPulse account was added to the team "${teamName}" with the role ${role}.`,
    `Sign in at ${publicUrl}/LoginPage and choose the team on the dashboard.`,
    '',
    'If you did not expect this, please contact your administrator.',
    '',
    'TrialPulse',
  ].join('\n');
}
