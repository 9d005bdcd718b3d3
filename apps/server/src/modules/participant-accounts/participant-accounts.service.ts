import { type LoginInput, type ParticipantSignupInput } from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { AppError } from '../../lib/errors';
import type { PasswordHasher } from '../../lib/passwords';
import type { AuthService, IssuedSession, RequestMeta } from '../auth/auth.service';
import type { AuthContext } from '../auth/session-context';
import type { ParticipantAccountsRepository } from './participant-accounts.repository';
import { isUniqueViolation } from '../../lib/db-errors';

export const PARTICIPANT_ACCOUNT_MESSAGES = {
  signedUp: 'Registration successful! You can now log in.',
  signedIn: 'Login successful',
  duplicateEmail: 'An account with this email already exists.',
  duplicateUsername: 'This username is already taken.',
  usernameNotEmail: 'A username containing @ must be your own email address.',
} as const;

type Deps = {
  repository: ParticipantAccountsRepository;
  hasher: PasswordHasher;
  clock: Clock;
  authService: Pick<AuthService, 'login'>;
};

/**
 * Participants' own accounts (users.account_type 'participant'): self sign-up, sign-in with
 * the same lockout as staff, and the link to participant records by email. These accounts
 * never get a team or a role, and the staff guard refuses their sessions.
 * See docs/decisions/0008-invitations.md (participant accounts).
 */
export function createParticipantAccountsService(deps: Deps) {
  const { repository, hasher, clock } = deps;

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
        throw new AppError(400, PARTICIPANT_ACCOUNT_MESSAGES.usernameNotEmail, { displayToUser: true });
      }
      const clashes = await repository.findClashingAccounts(email, usernameKey);
      if (clashes.some((row) => row.email === email)) throw duplicate(PARTICIPANT_ACCOUNT_MESSAGES.duplicateEmail);
      if (clashes.length > 0) throw duplicate(PARTICIPANT_ACCOUNT_MESSAGES.duplicateUsername);

      const passwordHash = await hasher.hash(input.password);
      const now = clock.now();
      try {
        await repository.transaction(async (tx) => {
          const userId = await repository.insertParticipantUser(tx, { email, username, createdAt: now });
          await repository.insertCredentials(tx, userId, passwordHash, now);
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
    async me(auth: AuthContext): Promise<{ email: string; participantCount: number }> {
      const email = await repository.findEmail(auth.userId);
      if (!email) throw AppError.unauthenticated();
      return { email, participantCount: await repository.countParticipantsWithEmail(email) };
    },
  };
}

export type ParticipantAccountsService = ReturnType<typeof createParticipantAccountsService>;

const duplicate = (message: string) => new AppError(409, message, { displayToUser: true });

