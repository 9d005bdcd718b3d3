import {
  PARTICIPANT_EMAIL_MESSAGES,
  type LoginInput,
  type ParticipantSignupInput,
} from '@trialpulse/shared';
import type { DbOrTx } from '../../db/client';
import { recordAudit } from '../../lib/audit';
import { hashToken, randomToken } from '../../lib/crypto';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { PasswordHasher } from '../../lib/passwords';
import type { AccountsService } from '../auth/accounts.service';
import type { AuthService, IssuedSession, RequestMeta } from '../auth/auth.service';
import type { AuthContext } from '../auth/session-context';
import type { ParticipantAccountsRepository } from './participant-accounts.repository';
import { isUniqueViolation } from '../../lib/db-errors';
import type { MailService } from '../mail/mail.service';

export const PARTICIPANT_ACCOUNT_MESSAGES = {
  signedUp: 'Registration successful! You can now log in.',
  signedIn: 'Login successful',
  duplicateEmail: 'An account with this email already exists.',
  duplicateUsername: 'This username is already taken.',
  usernameNotEmail: 'A username containing @ must be your own email address.',
  ...PARTICIPANT_EMAIL_MESSAGES,
} as const;

/** How long an emailed address-confirmation link works. */
const VERIFICATION_LINK_HOURS = 48;

type Deps = {
  repository: ParticipantAccountsRepository;
  hasher: PasswordHasher;
  clock: Clock;
  authService: Pick<AuthService, 'login'>;
  /** New accounts (the auth module owns users and credentials). */
  accounts: Pick<AccountsService, 'createAccount' | 'markEmailVerified'>;
  mail: () => Pick<MailService, 'enqueue' | 'deliverPending'>;
  /** Base of the links in mails, without a trailing slash. */
  publicUrl: string;
};

/**
 * Participants' own accounts (users.account_type 'participant'): self sign-up, sign-in with
 * the same lockout as staff, and the link to participant records by email. These accounts
 * never get a team or a role, and the staff guard refuses their sessions.
 * See docs/decisions/0008-invitations.md (participant accounts).
 */
export function createParticipantAccountsService(deps: Deps) {
  const { repository, hasher, clock } = deps;

  /** Mails a link that confirms the account receives mail at its address. */
  async function queueVerificationMail(tx: DbOrTx, userId: number, email: string) {
    const token = randomToken();
    await repository.insertVerificationToken(tx, {
      userId,
      email,
      tokenHash: hashToken(token),
      expiresAt: new Date(clock.now().getTime() + VERIFICATION_LINK_HOURS * 3_600_000),
    });
    const link = `${deps.publicUrl}/ParticipantLoginPage?verifyEmail=${encodeURIComponent(token)}`;
    await deps.mail().enqueue(tx, {
      to: email,
      subject: 'TrialPulse: confirm your email address',
      text: [
        'Hello,',
        '',
        'Please confirm that this is your email address, so that you can see the studies you take part in:',
        '',
        link,
        '',
        `The link works for ${VERIFICATION_LINK_HOURS} hours. If you did not register, you can ignore this message.`,
        '',
        'TrialPulse',
      ].join('\n'),
      template: 'participant-email-verification',
    });
  }

  return {
    /**
     * Creates a participant account. Throws 400 when a username with "@" is not the email,
     * 409 when the email or username is taken (by any account).
     */
    async signup(input: ParticipantSignupInput, meta: RequestMeta): Promise<void> {
      const email = input.email.trim().toLowerCase();
      const username = input.username.trim();
      const usernameKey = username.toLowerCase();
      // Sign-in looks accounts up by username OR email; an "@" username that is someone
      // else's address would make that lookup ambiguous (and squat a staff username).
      if (usernameKey.includes('@') && usernameKey !== email) {
        throw new AppError(400, PARTICIPANT_ACCOUNT_MESSAGES.usernameNotEmail, {
          displayToUser: true,
        });
      }
      const clashes = await repository.findClashingAccounts(email, usernameKey);
      if (clashes.some((row) => row.email === email))
        throw duplicate(PARTICIPANT_ACCOUNT_MESSAGES.duplicateEmail);
      if (clashes.length > 0) throw duplicate(PARTICIPANT_ACCOUNT_MESSAGES.duplicateUsername);

      const passwordHash = await hasher.hash(input.password);
      const now = clock.now();
      try {
        await repository.transaction(async (tx) => {
          const userId = await deps.accounts.createAccount(
            tx,
            { kind: 'participant', email, username },
            passwordHash,
            now,
          );
          await queueVerificationMail(tx, userId, email);
          await recordAudit(tx, {
            action: 'participant_account.signup',
            entityType: 'user',
            entityId: userId,
            actorUserId: userId,
            requestId: meta.requestId,
            after: { accountType: 'participant', ip: meta.ip },
          });
        });
      } catch (error) {
        if (isUniqueViolation(error)) throw duplicate(PARTICIPANT_ACCOUNT_MESSAGES.duplicateEmail);
        throw error;
      }
    },

    /**
     * Signs a participant account in (no team, second factor not used): the staff sign-in
     * with its lockout, answering alike for unknown, wrong, locked and staff accounts.
     */
    login(input: LoginInput, meta: RequestMeta): Promise<IssuedSession> {
      return deps.authService.login(input, meta, { accountType: 'participant' });
    },

    /** The signed-in participant account and how many participant records share its email. */
    /** The account; its participant records are counted only once the address is confirmed. */
    async me(
      auth: AuthContext,
    ): Promise<{ email: string; participantCount: number; emailVerified: boolean }> {
      const account = await repository.findAccount(auth.userId);
      if (!account) throw AppError.unauthenticated();
      const emailVerified = account.emailVerifiedAt !== null;
      return {
        email: account.email,
        emailVerified,
        participantCount: emailVerified
          ? await repository.countParticipantsWithEmail(account.email)
          : 0,
      };
    },

    /** Sends a new confirmation link to the signed-in account's address. */
    async resendVerification(auth: AuthContext, meta: RequestMeta): Promise<{ message: string }> {
      const account = await repository.findAccount(auth.userId);
      if (!account) throw AppError.unauthenticated();
      if (account.emailVerifiedAt) return { message: PARTICIPANT_ACCOUNT_MESSAGES.verified };
      await repository.transaction(async (tx) => {
        await queueVerificationMail(tx, auth.userId, account.email);
        await recordAudit(tx, {
          action: 'participant_account.verification_sent',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          requestId: meta.requestId,
        });
      });
      void deps.mail().deliverPending();
      return { message: PARTICIPANT_ACCOUNT_MESSAGES.verificationSent };
    },

    /** Confirms the address of the account a link was sent to. Throws 400 for a bad link. */
    async verifyEmail(token: string, meta: RequestMeta): Promise<{ message: string }> {
      const now = clock.now();
      const verified = await repository.transaction(async (tx) => {
        const claimed = await repository.claimVerificationToken(tx, hashToken(token), now);
        if (!claimed?.userId || !claimed.email) return false;
        if (!(await deps.accounts.markEmailVerified(tx, claimed.userId, claimed.email, now)))
          return false;
        await recordAudit(tx, {
          action: 'participant_account.email_verified',
          entityType: 'user',
          entityId: claimed.userId,
          actorUserId: claimed.userId,
          requestId: meta.requestId,
        });
        return true;
      });
      if (!verified) {
        throw new AppError(400, PARTICIPANT_ACCOUNT_MESSAGES.verificationInvalid, {
          displayToUser: true,
          reason: 'INVALID_TOKEN',
        });
      }
      return { message: PARTICIPANT_ACCOUNT_MESSAGES.verified };
    },
  };
}

export type ParticipantAccountsService = ReturnType<typeof createParticipantAccountsService>;

const duplicate = (message: string) => new AppError(409, message, { displayToUser: true });
