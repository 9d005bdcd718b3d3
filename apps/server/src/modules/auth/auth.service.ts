import {
  LIMITS,
  LOGIN_MESSAGES,
  SECURITY,
  type AuthStatus,
  type LoginInput,
} from '@trialpulse/shared';
import type { Meta } from '../../lib/request-meta';
import { recordAudit } from '../../lib/audit';
import type { Clock } from '../../lib/clock';
import { decryptSecret, encryptSecret, hashToken, randomToken } from '../../lib/crypto';
import { AppError } from '../../lib/errors';
import { dummyPasswordHash, type PasswordHasher } from '../../lib/passwords';
import type { AuthRepository } from './auth.repository';
import { accessTokenKey, signAccessToken } from './session-tokens';
import { sessionProblem, toAuthContext, type AuthContext } from './session-context';

export type IssuedSession = {
  accessToken: string;
  refreshToken: string;
  refreshExpiresAt: Date;
  auth: AuthContext;
};

/** The request's `Meta`; a sign-in also carries the remembered-device token, if the browser holds one. */
export type RequestMeta = Meta & { rememberToken?: string };

type Deps = {
  repository: AuthRepository;
  hasher: PasswordHasher;
  clock: Clock;
  appSecret: string;
  /** Seals the successor of a rotated refresh token for the reuse grace window. */
  encryptionKey: string;
  /** Decides the status a fresh password sign-in starts in (the second-factor module refines it). */
  initialAuthStatus?: (
    user: { id: number; sfaEnabled: boolean; sfaType: string | null; tokenVersion: number },
    meta: RequestMeta,
  ) => Promise<AuthStatus>;
};

const defaultInitialStatus: NonNullable<Deps['initialAuthStatus']> = async (user) =>
  user.sfaEnabled ? 'SFAValidateCodeNeeded' : 'SFAIsNotSet';

/**
 * Sign-in, refresh-token rotation and sign-out. Every outcome is audited; failures answer
 * the same whether the username exists, the password is wrong or the account is locked.
 */
export function createAuthService(deps: Deps) {
  const { repository, hasher, clock } = deps;
  const key = accessTokenKey(deps.appSecret);
  const initialAuthStatus = deps.initialAuthStatus ?? defaultInitialStatus;

  async function issueTokens(
    sessionId: string,
    userId: number,
    tokenVersion: number,
    expiresAt: Date,
  ) {
    const now = clock.now();
    const refreshToken = randomToken();
    return {
      accessToken: await signAccessToken({ userId, sessionId, tokenVersion }, key, now),
      refreshToken,
      refreshTokenHash: hashToken(refreshToken),
      refreshExpiresAt: expiresAt,
    };
  }

  function lockedError(lockedUntil: Date | null) {
    const retryAfter = lockedUntil
      ? Math.max(1, Math.ceil((lockedUntil.getTime() - clock.now().getTime()) / 1000))
      : 900;
    return new AppError(401, LOGIN_MESSAGES.locked, {
      reason: 'ACCOUNT_LOCKED',
      headers: { 'retry-after': String(retryAfter) },
    });
  }

  return {
    /**
     * Password sign-in. Throws 401 (invalid or locked, identical for unknown accounts),
     * 403 "Login error: User role is missing." for a staff account without a team.
     */
    async login(
      input: LoginInput,
      meta: RequestMeta,
      options: { accountType?: 'staff' | 'participant' } = {},
    ): Promise<IssuedSession> {
      // Participant accounts sign in the same way but have no team and no second factor.
      const accountType = options.accountType ?? 'staff';
      const auditPrefix = accountType === 'staff' ? 'auth.login' : 'participant_account.login';
      const usernameKey = input.username.trim().toLowerCase();
      const now = clock.now();
      // A second-factor lock refuses the password step too, before the password is looked
      // at, so the answer is the same whether or not the password was right.
      const known = await repository.findAccountByUsername(usernameKey);
      const secondFactorLock = known
        ? await repository.lockedUntil('sfa', String(known.user.id))
        : null;
      const reserved =
        secondFactorLock && secondFactorLock > now
          ? false
          : await repository.reserveAttempt(
              'login',
              usernameKey,
              now,
              SECURITY.lockoutMaxFailures,
              SECURITY.lockoutWindowMs,
            );
      if (!reserved) {
        await repository.transaction((tx) =>
          recordAudit(tx, {
            action: `${auditPrefix}.refused_locked`,
            entityType: 'login',
            entityId: usernameKey,
            requestId: meta.requestId,
            after: { ip: meta.ip },
          }),
        );
        const loginLock = await repository.lockedUntil('login', usernameKey);
        throw lockedError(
          secondFactorLock && secondFactorLock > now ? secondFactorLock : loginLock,
        );
      }

      const account = known;
      const matching =
        account && account.user.accountType === accountType && account.user.isActive
          ? account
          : undefined;
      const passwordHash = matching?.passwordHash ?? (await dummyPasswordHash(hasher));
      const passwordOk =
        (await hasher.verify(passwordHash, input.password)) && Boolean(matching?.passwordHash);

      if (!passwordOk || !matching) {
        const lockedUntil = await repository.settleFailedAttempt(
          'login',
          usernameKey,
          now,
          SECURITY.lockoutMaxFailures,
          SECURITY.lockoutDurationMs,
        );
        await repository.transaction(async (tx) => {
          await recordAudit(tx, {
            action: `${auditPrefix}.failure`,
            entityType: 'user',
            entityId: account?.user.id ?? usernameKey,
            actorUserId: account?.user.id ?? null,
            requestId: meta.requestId,
            after: { ip: meta.ip },
          });
          if (lockedUntil) {
            await recordAudit(tx, {
              action: 'auth.lockout',
              entityType: 'user',
              entityId: account?.user.id ?? usernameKey,
              actorUserId: account?.user.id ?? null,
              requestId: meta.requestId,
              after: { lockedUntil: lockedUntil.toISOString() },
            });
          }
        });
        if (lockedUntil) throw lockedError(lockedUntil);
        throw new AppError(401, LOGIN_MESSAGES.invalidCredentials, {
          reason: 'INVALID_CREDENTIALS',
        });
      }

      await repository.clearThrottle('login', usernameKey, now);
      const user = matching.user;
      const mapping =
        accountType === 'staff' ? await repository.pickTeamMapping(user.id) : { teamId: null };
      if (!mapping) {
        await repository.transaction((tx) =>
          recordAudit(tx, {
            action: 'auth.login.failure',
            entityType: 'user',
            entityId: user.id,
            actorUserId: user.id,
            requestId: meta.requestId,
            after: { reason: 'role_missing' },
          }),
        );
        throw new AppError(403, LOGIN_MESSAGES.roleMissing, { reason: 'ROLE_MISSING' });
      }

      const authStatus =
        accountType === 'staff' ? await initialAuthStatus(user, meta) : 'Authorized';
      const expiresAt = new Date(now.getTime() + SECURITY.absoluteSessionLifetimeMs);
      const sessionId = await repository.transaction(async (tx) => {
        const id = await repository.insertSession(tx, {
          userId: user.id,
          teamId: mapping.teamId,
          tokenVersion: user.tokenVersion,
          authStatus,
          createdAt: now,
          lastUsedAt: now,
          idleExpiresAt: idleExpiry(now, expiresAt),
          expiresAt,
          ipAddress: meta.ip,
          userAgent: meta.userAgent?.slice(0, 300),
        });
        await recordAudit(tx, {
          action: `${auditPrefix}.success`,
          entityType: 'session',
          entityId: id,
          actorUserId: user.id,
          teamId: mapping.teamId,
          requestId: meta.requestId,
          after: { authStatus, ip: meta.ip },
        });
        return id;
      });
      return this.startTokens(sessionId);
    },

    /** Issues the first refresh token and access token of a session. */
    async startTokens(sessionId: string): Promise<IssuedSession> {
      const loaded = await repository.loadSessionContext(sessionId);
      if (!loaded) throw AppError.unauthenticated();
      const tokens = await issueTokens(
        sessionId,
        loaded.user.id,
        loaded.session.tokenVersion,
        loaded.session.expiresAt,
      );
      await repository.transaction((tx) =>
        repository.insertRefreshToken(tx, {
          sessionId,
          tokenHash: tokens.refreshTokenHash,
          expiresAt: tokens.refreshExpiresAt,
          createdAt: clock.now(),
        }),
      );
      return { ...tokens, auth: toAuthContext(loaded, clock.now()) };
    },

    /**
     * Rotates the refresh token: the presented one is spent, a new pair issued, and the
     * idle deadline pushed forward. A spent token presented again revokes the session
     * (the whole token family). Throws 401 on any failure.
     */
    async refresh(presented: string | undefined, meta: RequestMeta): Promise<IssuedSession> {
      /**
       * Within the grace window a spent token answers with the refresh token that replaced
       * it (and a fresh access token), as long as that successor is itself still unspent and
       * the session valid; otherwise null (the caller treats it as reuse).
       */
      const graceSuccessor = async (
        spent: { usedAt: Date | null; successorEncrypted: string | null },
        at: Date,
      ): Promise<IssuedSession | null> => {
        if (!spent.usedAt || !spent.successorEncrypted) return null;
        if (at.getTime() - spent.usedAt.getTime() > SECURITY.refreshReuseGraceMs) return null;
        const successorToken = decryptSecret(spent.successorEncrypted, deps.encryptionKey);
        const successor = await repository.findRefreshToken(hashToken(successorToken));
        if (!successor || successor.token.usedAt || successor.token.expiresAt <= at) return null;
        const loaded = await repository.loadSessionContext(successor.session.id);
        if (!loaded || sessionProblem(loaded, loaded.user.tokenVersion, at)) return null;
        const { session } = successor;
        return {
          accessToken: await signAccessToken(
            { userId: session.userId, sessionId: session.id, tokenVersion: session.tokenVersion },
            key,
            at,
          ),
          refreshToken: successorToken,
          refreshExpiresAt: successor.token.expiresAt,
          auth: toAuthContext(loaded, at),
        };
      };

      if (!presented) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
      const now = clock.now();
      const found = await repository.findRefreshToken(hashToken(presented));
      if (!found) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
      const { token, session } = found;

      const revokeFamily = (reason: string) =>
        repository.transaction(async (tx) => {
          await repository.revokeSession(tx, session.id, reason, now);
          await recordAudit(tx, {
            action: 'auth.refresh.reuse_detected',
            entityType: 'session',
            entityId: session.id,
            actorUserId: session.userId,
            requestId: meta.requestId,
          });
        });

      if (token.usedAt) {
        const grace = await graceSuccessor(token, now);
        if (grace) return grace;
        await revokeFamily('refresh_token_reuse');
        throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
      }
      const loaded = await repository.loadSessionContext(session.id);
      if (
        !loaded ||
        token.expiresAt <= now ||
        sessionProblem(loaded, loaded.user.tokenVersion, now)
      ) {
        throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
      }

      const tokens = await issueTokens(
        session.id,
        session.userId,
        session.tokenVersion,
        session.expiresAt,
      );
      const rotated = await repository.transaction(async (tx) => {
        const successor = encryptSecret(tokens.refreshToken, deps.encryptionKey);
        if (!(await repository.spendRefreshToken(tx, token.id, now, successor))) return false;
        await repository.insertRefreshToken(tx, {
          sessionId: session.id,
          tokenHash: tokens.refreshTokenHash,
          expiresAt: tokens.refreshExpiresAt,
          createdAt: now,
        });
        await repository.extendSession(tx, session.id, idleExpiry(now, session.expiresAt), now);
        return true;
      });
      if (!rotated) {
        // A concurrent refresh with the same token won the race: answer with its pair.
        const again = await repository.findRefreshToken(hashToken(presented));
        const grace = again?.token.usedAt ? await graceSuccessor(again.token, now) : null;
        if (grace) return grace;
        await revokeFamily('refresh_token_reuse');
        throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
      }
      const reloaded = await repository.loadSessionContext(session.id);
      return { ...tokens, auth: toAuthContext(reloaded!, now) };
    },

    /** Moves a session to another second-factor status (the SFA module's transitions). */
    async setAuthStatus(
      sessionId: string,
      authStatus: AuthStatus,
      audit: { action: string; auth: AuthContext; requestId: string },
    ) {
      await repository.transaction(async (tx) => {
        await repository.setSessionAuthStatus(tx, sessionId, authStatus);
        await recordAudit(tx, {
          action: audit.action,
          entityType: 'session',
          entityId: sessionId,
          actorUserId: audit.auth.userId,
          teamId: audit.auth.teamId,
          requestId: audit.requestId,
          after: { authStatus },
        });
      });
    },

    /**
     * Reserves one second-factor code check for the user before the code is looked at, in
     * the account's own second-factor budget (apart from the password budget, so a correct
     * password never clears it). While the budget is spent or locked nothing is checked:
     * every pending session of the user ends and the caller gets the locked answer.
     */
    async reserveSecondFactorCheck(auth: AuthContext, meta: RequestMeta): Promise<void> {
      const now = clock.now();
      const key = String(auth.userId);
      if (
        await repository.reserveAttempt(
          'sfa',
          key,
          now,
          SECURITY.lockoutMaxFailures,
          SECURITY.lockoutWindowMs,
        )
      )
        return;
      await repository.transaction(async (tx) => {
        await repository.revokePendingSessions(tx, auth.userId, 'second_factor_locked', now);
        await recordAudit(tx, {
          action: 'sfa.code.refused_locked',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
      });
      throw lockedError(await repository.lockedUntil('sfa', key));
    },

    /**
     * Keeps a reserved check as a failure. When it spends the budget the user's second
     * factor locks and every pending session of the user ends; returns whether that happened.
     */
    async recordSecondFactorFailure(
      auth: AuthContext,
      meta: RequestMeta,
    ): Promise<{ locked: boolean; lockedUntil: Date | null }> {
      const now = clock.now();
      const lockedUntil = await repository.settleFailedAttempt(
        'sfa',
        String(auth.userId),
        now,
        SECURITY.lockoutMaxFailures,
        SECURITY.lockoutDurationMs,
      );
      await repository.transaction(async (tx) => {
        await recordAudit(tx, {
          action: 'sfa.code.failure',
          entityType: 'user',
          entityId: auth.userId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
        if (lockedUntil) {
          await recordAudit(tx, {
            action: 'sfa.lockout',
            entityType: 'user',
            entityId: auth.userId,
            actorUserId: auth.userId,
            requestId: meta.requestId,
            after: { lockedUntil: lockedUntil.toISOString() },
          });
          await repository.revokePendingSessions(tx, auth.userId, 'second_factor_locked', now);
        }
      });
      return { locked: Boolean(lockedUntil), lockedUntil };
    },

    /** Clears the second-factor failures after a correct code (never an active lock). */
    async clearSecondFactorFailures(auth: AuthContext) {
      await repository.clearThrottle('sfa', String(auth.userId), clock.now());
    },

    /**
     * Passing the second factor starts a new session: a successor row (same user, team,
     * lifetime) with the new status, and new tokens; the pre-second-factor session ends, so
     * its identifier and tokens are refused from now on.
     */
    async promoteSession(
      auth: AuthContext,
      authStatus: AuthStatus,
      meta: RequestMeta,
      action: string,
    ): Promise<IssuedSession> {
      const now = clock.now();
      const newId = await repository.transaction(async (tx) => {
        const old = await repository.findSession(tx, auth.sessionId);
        if (!old || old.revokedAt) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
        const id = await repository.insertSession(tx, {
          userId: old.userId,
          teamId: old.teamId,
          tokenVersion: old.tokenVersion,
          authStatus,
          createdAt: now,
          lastUsedAt: now,
          idleExpiresAt: idleExpiry(now, old.expiresAt),
          expiresAt: old.expiresAt,
          ipAddress: meta.ip,
          userAgent: meta.userAgent?.slice(0, 300),
        });
        await repository.revokeSession(tx, old.id, 'second_factor_passed', now);
        await recordAudit(tx, {
          action,
          entityType: 'session',
          entityId: id,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
          before: { sessionId: old.id, authStatus: old.authStatus },
          after: { authStatus },
        });
        return id;
      });
      return this.startTokens(newId);
    },

    lockedError,

    /** Ends the session (idempotent). */
    async logout(auth: AuthContext | null, meta: RequestMeta): Promise<void> {
      if (!auth) return;
      await repository.transaction(async (tx) => {
        await repository.revokeSession(tx, auth.sessionId, 'logout', clock.now());
        await recordAudit(tx, {
          action: 'auth.logout',
          entityType: 'session',
          entityId: auth.sessionId,
          actorUserId: auth.userId,
          teamId: auth.teamId,
          requestId: meta.requestId,
        });
      });
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;

/** Idle deadline: now + idle timeout, never past the absolute lifetime. */
function idleExpiry(now: Date, expiresAt: Date): Date {
  return new Date(Math.min(now.getTime() + SECURITY.idleTimeoutMs, expiresAt.getTime()));
}

/** Refresh interval the client uses; the idle timeout must be longer (checked at load). */
if (SECURITY.idleTimeoutMs <= LIMITS.tokenRefreshIntervalMs) {
  throw new Error('idle timeout must exceed the client refresh interval');
}
