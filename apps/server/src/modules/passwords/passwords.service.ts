import {
  CHANGE_PASSWORD_MESSAGES,
  RESET_MESSAGES,
  type ChangePasswordInput,
  type ResetPasswordInput,
} from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { hashToken, randomToken } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import type { PasswordHasher } from '../../lib/passwords';
import type { AccountsService } from '../auth/accounts.service';
import type { AuthContext } from '../auth/session-context';
import type { RequestMeta } from '../auth/auth.service';
import type { PasswordsRepository } from './passwords.repository';
import type { MailService } from '../mail/mail.service';

/** A reset link works for one hour. */
export const RESET_TOKEN_TTL_MS = 60 * 60 * 1000;
/** At most this many reset mails per account per hour; further requests send nothing. */
export const RESET_MAILS_PER_HOUR = 3;

type Deps = {
  repository: PasswordsRepository;
  /** The new password itself: hash, token version, sessions, lockout (the auth module's tables). */
  accounts: Pick<
    AccountsService,
    'setPasswordHash' | 'bumpTokenVersion' | 'revokeSessions' | 'clearLoginThrottles'
  >;
  hasher: PasswordHasher;
  clock: Clock;
  mail: Pick<MailService, 'enqueue'>;
  /** Base of the links in mails, without a trailing slash. */
  publicUrl: string;
};

/**
 * Password change (signed in), forgotten-password mail and reset by link. Each change and
 * its audit row are written in one transaction; a new password bumps token_version, which
 * ends every session of the account.
 */
export function createPasswordsService(deps: Deps) {
  const { repository, accounts, hasher, clock, mail } = deps;

  const invalidLink = () =>
    new AppError(400, RESET_MESSAGES.invalidOrExpired, {
      displayToUser: true,
      reason: 'INVALID_TOKEN',
    });

  return {
    /**
     * Changes the signed-in user's password after checking the current one. Throws 400
     * "The current password is not correct." (displayable) when it does not match.
     */
    async changePassword(
      auth: AuthContext,
      input: ChangePasswordInput,
      meta: RequestMeta,
    ): Promise<void> {
      const currentHash = await repository.findPasswordHash(auth.userId);
      const currentOk =
        currentHash !== undefined && (await hasher.verify(currentHash, input.currentPassword));
      if (!currentOk) {
        await repository.transaction((tx) =>
          recordAudit(tx, {
            action: 'auth.password.change_failed',
            entityType: 'user',
            entityId: auth.userId,
            actorUserId: auth.userId,
            teamId: auth.teamId,
            requestId: meta.requestId,
            after: { reason: 'wrong_current_password', ip: meta.ip },
          }),
        );
        throw new AppError(400, CHANGE_PASSWORD_MESSAGES.wrongCurrent, {
          displayToUser: true,
          reason: 'WRONG_CURRENT_PASSWORD',
        });
      }
      const newHash = await hasher.hash(input.newPassword);
      const now = clock.now();
      await repository.transaction(async (tx) => {
        await accounts.setPasswordHash(tx, auth.userId, newHash, now);
        const { tokenVersion } = await accounts.bumpTokenVersion(tx, auth.userId);
        await accounts.revokeSessions(tx, auth.userId, 'password_change', now);
        await repository.invalidateResetTokens(tx, auth.userId, now);
        await recordAudit(tx, {
          action: 'auth.password.change',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
          before: { tokenVersion: auth.tokenVersion },
          after: { tokenVersion, ip: meta.ip },
        });
      });
    },

    /**
     * Sends a reset link to an active staff account with this email. Answers nothing either
     * way, so the caller cannot tell whether the account exists; beyond RESET_MAILS_PER_HOUR
     * mails per account per hour it silently sends nothing. Returns whether a mail was queued
     * (the caller then triggers delivery after the commit).
     */
    async requestReset(email: string, meta: RequestMeta): Promise<{ mailQueued: boolean }> {
      const now = clock.now();
      const account = await repository.findAccountByEmail(email.trim().toLowerCase());
      const eligible =
        account && account.isActive && account.accountType === 'staff' ? account : undefined;

      if (!eligible) {
        // Same shape of work as the real path (a read and a one-row write), no address kept.
        await repository.transaction((tx) =>
          recordAudit(tx, {
            action: 'auth.password.reset_requested',
            entityType: 'user',
            entityId: null,
            requestId: meta.requestId,
            after: { accountFound: false, mailed: false, ip: meta.ip },
          }),
        );
        return { mailQueued: false };
      }

      return repository.transaction(async (tx) => {
        await repository.lockUser(tx, eligible.id);
        const recent = await repository.countResetTokensSince(
          tx,
          eligible.id,
          new Date(now.getTime() - 60 * 60 * 1000),
        );
        if (recent >= RESET_MAILS_PER_HOUR) {
          await recordAudit(tx, {
            action: 'auth.password.reset_requested',
            entityType: 'user',
            entityId: eligible.id,
            requestId: meta.requestId,
            after: { accountFound: true, mailed: false, reason: 'per_account_limit', ip: meta.ip },
          });
          return { mailQueued: false };
        }
        const token = randomToken();
        await repository.invalidateResetTokens(tx, eligible.id, now);
        const tokenId = await repository.insertResetToken(tx, {
          userId: eligible.id,
          tokenHash: hashToken(token),
          createdAt: now,
          expiresAt: new Date(now.getTime() + RESET_TOKEN_TTL_MS),
        });
        const link = `${deps.publicUrl}/ResetPasswordPage?token=${encodeURIComponent(token)}`;
        await mail.enqueue(tx, {
          to: eligible.email,
          subject: 'TrialPulse: reset your password',
          text: resetMailText(link),
          template: 'password-reset',
        });
        await recordAudit(tx, {
          action: 'auth.password.reset_requested',
          entityType: 'user',
          entityId: eligible.id,
          requestId: meta.requestId,
          after: { accountFound: true, mailed: true, tokenId, ip: meta.ip },
        });
        return { mailQueued: true };
      });
    },

    /** The account a valid reset link belongs to. Throws 400 (invalid or expired link). */
    async validateResetToken(token: string): Promise<{ userId: number }> {
      const found = await repository.findValidResetToken(hashToken(token), clock.now());
      if (!found) throw invalidLink();
      return { userId: found.userId };
    },

    /**
     * Sets a new password through a reset link. The link is spent in the same transaction
     * (atomically, so it works once), sessions end (token_version) and the sign-in lock of
     * the account is lifted. Throws 400 for a used, expired or unknown link.
     */
    async resetPassword(input: ResetPasswordInput, meta: RequestMeta): Promise<void> {
      const tokenHash = hashToken(input.token);
      // Cheap check first: a bad link costs no password hashing.
      if (!(await repository.findValidResetToken(tokenHash, clock.now()))) throw invalidLink();
      const newHash = await hasher.hash(input.newPassword);
      const now = clock.now();
      await repository.transaction(async (tx) => {
        const consumed = await repository.consumeResetToken(tx, tokenHash, now);
        if (!consumed) throw invalidLink();
        await accounts.setPasswordHash(tx, consumed.userId, newHash, now);
        const user = await accounts.bumpTokenVersion(tx, consumed.userId);
        await accounts.revokeSessions(tx, consumed.userId, 'password_reset', now);
        await repository.invalidateResetTokens(tx, consumed.userId, now);
        await accounts.clearLoginThrottles(tx, [
          user.username.toLowerCase(),
          user.email.toLowerCase(),
        ]);
        await recordAudit(tx, {
          action: 'auth.password.reset',
          entityType: 'user',
          entityId: consumed.userId,
          actorUserId: consumed.userId,
          requestId: meta.requestId,
          after: { tokenId: consumed.tokenId, tokenVersion: user.tokenVersion, ip: meta.ip },
        });
      });
    },
  };
}

export type PasswordsService = ReturnType<typeof createPasswordsService>;

function resetMailText(link: string): string {
  return [
    'Hello,',
    '',
    'A new password was requested for your TrialPulse account. To choose one, open this link within 1 hour:',
    '',
    link,
    '',
    'The link works once. If you did not ask for this, ignore this message: your password stays as it is.',
    '',
    'TrialPulse',
  ].join('\n');
}
