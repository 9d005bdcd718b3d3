import { timingSafeEqual } from 'node:crypto';
import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { LIMITS, SECURITY, type AuthStatus } from '@trialpulse/shared';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import {
  decryptSecret,
  encryptSecret,
  hashToken,
  randomDigits,
  randomToken,
} from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import type { AccountsService } from '../auth/accounts.service';
import type { AuthService, IssuedSession, RequestMeta } from '../auth/auth.service';
import type { AuthContext } from '../auth/session-context';
import type { SfaRepository } from './sfa.repository';
import type { MailService } from '../mail/mail.service';

const ISSUER = 'TrialPulse';
const STEP_SECONDS = 30;
const REMEMBER_MS = LIMITS.rememberDeviceHours * 60 * 60 * 1000;

export const SFA_MESSAGES = {
  invalidCode: 'The code is not correct. Please try again.',
  noPendingSetup: 'Please set up the second factor first.',
  alreadySetUp: 'The second factor is already set up.',
  alreadyValidated: 'SFA already validated',
  codeSent: 'A sign-in code has been sent to your email address.',
  verified: 'The second factor is set up. Please log in again.',
  validated: 'Second factor validated.',
  reset: 'The second factor has been reset. Please set it up again.',
  resetNeedsValidation: 'Please complete the second factor before resetting it.',
} as const;

type Deps = {
  repository: SfaRepository;
  /** The account's second-factor flags, token version and sessions (the auth module's tables). */
  accounts: Pick<AccountsService, 'enableTotp' | 'clearSecondFactor'>;
  authService: AuthService;
  mail: () => MailService;
  clock: Clock;
  encryptionKey: string;
};

/**
 * The second factor (access spec §2 /SFA… pages, §4 status transitions): authenticator
 * (RFC 6238, SHA-1, 6 digits, 30 s, ±1 step) set-up and validation, emailed codes
 * (10 minutes, 5 tries, hashed), remembered devices (48 h, hashed, void on token_version
 * change) and reset. Wrong codes spend the account's sign-in budget.
 */
export function createSfaService(deps: Deps) {
  const { repository, accounts, authService, clock } = deps;

  const totpFor = (secretBase32: string, label: string) =>
    new OTPAuth.TOTP({
      issuer: ISSUER,
      label,
      algorithm: 'SHA1',
      digits: 6,
      period: STEP_SECONDS,
      secret: OTPAuth.Secret.fromBase32(secretBase32),
    });

  /** The matching time step for a code (±1 step of drift), or null. */
  function matchingStep(secretBase32: string, code: string): number | null {
    const now = clock.now().getTime();
    const delta = totpFor(secretBase32, 'check').validate({
      token: code,
      timestamp: now,
      window: 1,
    });
    return delta === null ? null : Math.floor(now / 1000 / STEP_SECONDS) + delta;
  }

  async function failCode(auth: AuthContext, meta: RequestMeta): Promise<never> {
    const { locked, lockedUntil } = await authService.recordSecondFactorFailure(auth, meta);
    if (locked) throw authService.lockedError(lockedUntil);
    throw new AppError(400, SFA_MESSAGES.invalidCode, { reason: 'SFA_CODE_INVALID' });
  }

  /** Checks a TOTP code against a stored secret and claims its step (no replay). */
  async function checkTotp(
    userId: number,
    secretEncrypted: string,
    code: string,
    onSuccess: (tx: Parameters<Parameters<SfaRepository['transaction']>[0]>[0]) => Promise<void>,
  ) {
    const step = matchingStep(decryptSecret(secretEncrypted, deps.encryptionKey), code);
    if (step === null) return false;
    return repository.transaction(async (tx) => {
      if (!(await repository.claimStep(tx, userId, step))) return false;
      await onSuccess(tx);
      return true;
    });
  }

  return {
    /** A new authenticator secret, stored encrypted and pending verification. */
    async setup(auth: AuthContext, meta: RequestMeta): Promise<{ qrImage: string; key: string }> {
      const existing = await repository.findSecret(auth.userId);
      if (existing?.verifiedAt)
        throw new AppError(409, SFA_MESSAGES.alreadySetUp, { reason: 'SFA_ALREADY_SET' });
      const secret = new OTPAuth.Secret({ size: 20 });
      await repository.savePendingSecret(
        auth.userId,
        encryptSecret(secret.base32, deps.encryptionKey),
      );
      if (auth.authStatus !== 'Authorized') {
        await authService.setAuthStatus(auth.sessionId, 'SFAVerifyCodeNeeded', {
          action: 'sfa.setup.start',
          auth,
          requestId: meta.requestId,
        });
      }
      const uri = totpFor(secret.base32, auth.user.email).toString();
      return {
        qrImage: await QRCode.toDataURL(uri, { margin: 1, width: 240 }),
        key: secret.base32,
      };
    },

    /** Confirms the set-up with a first code; the session then ends (spec: log in again). */
    async verify(auth: AuthContext, code: string, meta: RequestMeta) {
      const secret = await repository.findSecret(auth.userId);
      if (!secret || secret.verifiedAt)
        throw new AppError(400, SFA_MESSAGES.noPendingSetup, { reason: 'SFA_NO_PENDING_SETUP' });
      await authService.reserveSecondFactorCheck(auth, meta);
      const ok = await checkTotp(auth.userId, secret.secretEncrypted, code, async (tx) => {
        await repository.markSecretVerified(tx, auth.userId, clock.now());
        await accounts.enableTotp(tx, auth.userId);
        await recordAudit(tx, {
          action: 'sfa.setup.verified',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
      });
      if (!ok) return failCode(auth, meta);
      await authService.clearSecondFactorFailures(auth);
      await authService.logout(auth, meta);
      return { success: true, message: SFA_MESSAGES.verified };
    },

    /**
     * Validates the second factor of this sign-in with an authenticator code or the
     * newest emailed code. Every check first reserves a slot in the user's second-factor
     * budget (none while locked). On success the session is replaced by a new one (new id
     * and tokens, returned as `issued`); also returns a remembered-device token when asked.
     */
    async validate(
      auth: AuthContext,
      code: string,
      remember: boolean,
      meta: RequestMeta,
    ): Promise<{ rememberToken: string | null; issued: IssuedSession | null }> {
      if (auth.authStatus === 'Authorized') return { rememberToken: null, issued: null };
      await authService.reserveSecondFactorCheck(auth, meta);
      const now = clock.now();
      let ok = false;
      const emailed = await repository.findLiveEmailCode(
        auth.userId,
        now,
        SECURITY.emailCodeMaxTries,
      );
      if (emailed) {
        if (sameHash(emailed.codeHash, hashToken(code))) {
          ok = await repository.transaction((tx) => repository.useEmailCode(tx, emailed.id, now));
        } else {
          await repository.countWrongEmailCode(emailed.id);
        }
      }
      if (!ok) {
        const secret = await repository.findSecret(auth.userId);
        if (secret?.verifiedAt)
          ok = await checkTotp(auth.userId, secret.secretEncrypted, code, async () => undefined);
      }
      if (!ok) return failCode(auth, meta);

      await authService.clearSecondFactorFailures(auth);
      let rememberToken: string | null = null;
      await repository.transaction(async (tx) => {
        if (remember) {
          rememberToken = randomToken();
          await repository.insertRememberedDevice(tx, {
            userId: auth.userId,
            tokenHash: hashToken(rememberToken),
            tokenVersion: auth.tokenVersion,
            createdAt: now,
            expiresAt: new Date(now.getTime() + REMEMBER_MS),
            userAgent: meta.userAgent?.slice(0, 300),
          });
        }
      });
      const issued = await authService.promoteSession(
        auth,
        'Authorized',
        meta,
        'sfa.validate.success',
      );
      return { rememberToken: rememberToken as string | null, issued };
    },

    /** Emails a sign-in code (spec: on load of the emailed-code page, and "Re-send code"). */
    async sendEmailCode(auth: AuthContext, meta: RequestMeta) {
      if (auth.authStatus === 'Authorized')
        return { success: false, message: SFA_MESSAGES.alreadyValidated };
      const now = clock.now();
      const code = randomDigits(LIMITS.sfaCodeLength);
      await repository.transaction(async (tx) => {
        await repository.replaceEmailCode(
          tx,
          auth.userId,
          hashToken(code),
          now,
          new Date(now.getTime() + SECURITY.emailCodeTtlMs),
        );
        await deps.mail().enqueue(tx, {
          to: auth.user.email,
          subject: 'Your TrialPulse sign-in code',
          text: `Your TrialPulse sign-in code is ${code}.\n\nIt expires in 10 minutes. If you did not try to sign in, change your password.`,
          template: 'sfa-email-code',
        });
        await recordAudit(tx, {
          action: 'sfa.email_code.sent',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
      });
      void deps.mail().deliverPending();
      await authService.setAuthStatus(auth.sessionId, 'SFAValidateEmailCodeNeeded', {
        action: 'sfa.status.email_code',
        auth,
        requestId: meta.requestId,
      });
      return { success: true, message: SFA_MESSAGES.codeSent };
    },

    /** Back to SFAIsNotSet; only from a validated session, so a password alone cannot remove the factor. */
    async reset(auth: AuthContext, meta: RequestMeta) {
      if (auth.authStatus !== 'Authorized') {
        throw AppError.forbidden(SFA_MESSAGES.resetNeedsValidation, {
          reason: 'SFA_REQUIRED',
          user: auth.user,
        });
      }
      await repository.transaction(async (tx) => {
        await repository.resetSecondFactor(tx, auth.userId);
        await accounts.clearSecondFactor(tx, auth.userId, auth.sessionId, clock.now());
        await recordAudit(tx, {
          action: 'sfa.reset',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
      });
      return authService.startTokens(auth.sessionId);
    },
  };
}

export type SfaService = ReturnType<typeof createSfaService>;

/**
 * The status a fresh password sign-in starts in: a valid remembered device (this user,
 * unexpired, same token_version) skips the code; otherwise the user's second factor decides.
 */
export function initialAuthStatusFrom(repository: SfaRepository, clock: Clock) {
  return async (
    user: { id: number; sfaEnabled: boolean; sfaType: string | null; tokenVersion: number },
    meta: RequestMeta,
  ): Promise<AuthStatus> => {
    if (meta.rememberToken) {
      const device = await repository.findRememberedDevice(hashToken(meta.rememberToken));
      const now = clock.now();
      if (
        device &&
        device.userId === user.id &&
        device.expiresAt > now &&
        device.tokenVersion === user.tokenVersion
      ) {
        await repository.touchRememberedDevice(device.id, now);
        return 'Authorized';
      }
    }
    if (!user.sfaEnabled) return 'SFAIsNotSet';
    return user.sfaType === 'email' ? 'SFAValidateEmailCodeNeeded' : 'SFAValidateCodeNeeded';
  };
}

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
