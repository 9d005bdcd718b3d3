import type { FastifyInstance, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import fp from 'fastify-plugin';
import { NO_ROLE_MESSAGE, LOGIN_MESSAGES, can, type Action } from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import type { Clock } from '../../lib/clock';
import type { AuthRepository } from './auth.repository';
import { ACCESS_COOKIE, accessTokenKey, verifyAccessToken } from './session-tokens';
import { sessionProblem, toAuthContext, type AuthContext } from './session-context';

/** Marks a preHandler made by `requireStaff`; its value is the guard's options. */
export const STAFF_GUARD = Symbol.for('trialpulse.staffGuard');

export type RequireStaffOptions = {
  /** The action of the route (permissions table in shared); omit for every staff role. */
  action?: Action;
  /** Let a session whose second factor is pending through (the SFA and session calls). */
  allowPendingSecondFactor?: boolean;
  /** Let a signed-in user without a role in the selected team through (team selection). */
  allowMissingRole?: boolean;
};

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, when the request carries a valid session (set by `requireStaff`/`loadAuth`). */
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** preHandler: a signed-in staff member with the second factor done whose role may do `action`. */
    requireStaff(options?: RequireStaffOptions): preHandlerAsyncHookHandler;
    /** Resolves `request.auth` from the cookies without enforcing anything. */
    loadAuth(request: FastifyRequest): Promise<AuthContext | null>;
  }
}

/**
 * The server-side guard every protected route uses. It verifies the access token, then
 * re-reads the session and user on every request so logout, token_version bumps,
 * deactivation and role changes take effect at the caller's next request. Answers:
 * 401 no valid session; 403 participant account, second factor pending (the body's
 * `user` carries the status), no role, or role not allowed.
 */
export const authGuardPlugin = fp(
  async (
    app: FastifyInstance,
    options: {
      repository: Pick<AuthRepository, 'loadSessionContext'>;
      appSecret: string;
      clock: Clock;
    },
  ) => {
    const key = accessTokenKey(options.appSecret);
    app.decorateRequest('auth', null);

    const loadAuth = async (request: FastifyRequest): Promise<AuthContext | null> => {
      if (request.auth) return request.auth;
      const token = request.cookies[ACCESS_COOKIE];
      if (!token) return null;
      const now = options.clock.now();
      const claims = await verifyAccessToken(token, key, now);
      if (!claims) return null;
      const loaded = await options.repository.loadSessionContext(claims.sessionId);
      if (!loaded || loaded.user.id !== claims.userId) return null;
      if (sessionProblem(loaded, claims.tokenVersion, now)) return null;
      request.auth = toAuthContext(loaded, now);
      return request.auth;
    };
    app.decorate('loadAuth', loadAuth);

    app.decorate('requireStaff', (guard: RequireStaffOptions = {}): preHandlerAsyncHookHandler => {
      const handler: preHandlerAsyncHookHandler = async (request) => {
        const auth = await loadAuth(request);
        if (!auth) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
        if (auth.kind !== 'staff') throw AppError.forbidden();
        if (auth.authStatus !== 'Authorized' && !guard.allowPendingSecondFactor) {
          throw AppError.forbidden('The second factor is required.', {
            reason: 'SFA_REQUIRED',
            user: auth.user,
          });
        }
        if (!auth.role) {
          if (guard.allowMissingRole) return;
          throw AppError.forbidden(NO_ROLE_MESSAGE, { reason: 'ROLE_MISSING' });
        }
        if (guard.action && !can(auth.role, guard.action)) {
          throw AppError.forbidden();
        }
      };
      // The route's declared access, readable from the route list (security suite).
      return Object.assign(handler, { [STAFF_GUARD]: guard });
    });
  },
  { name: 'auth-guard', dependencies: ['@fastify/cookie'] },
);
