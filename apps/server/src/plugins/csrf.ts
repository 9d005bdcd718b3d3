import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { createHmac } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import csrfProtection from '@fastify/csrf-protection';
import {
  ACCESS_COOKIE,
  SESSION_BINDING_COOKIE,
  unverifiedSessionId,
} from '../modules/auth/session-tokens';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_SECRET_COOKIE = 'tp_csrf_secret';
const MISMATCH = '!';
const ANONYMOUS = '-';

/**
 * Anti-forgery tokens for every state-changing API call. `GET /api/csrf-token` hands out a
 * token derived from a secret kept in a signed httpOnly cookie; every POST/PUT/PATCH/DELETE
 * under /api must echo it in the `x-csrf-token` header. Failures become 403 through the
 * error handler.
 *
 * Each token is also bound to the caller's session (the signed `tp_session` cookie; '-'
 * before sign-in): a token issued to another session — another browser, or this browser
 * before it signed in or passed the second factor — is refused, and so is a binding cookie
 * that names another session than the access token does. The web client fetches a fresh
 * token after such a refusal and retries once.
 */
export const csrfPlugin = fp(
  async (app: FastifyInstance, options: { secureCookies: boolean; appSecret: string }) => {
    /** The session this request's tokens belong to ('-' for none; '!' when the cookies disagree). */
    const sessionBinding = (request: FastifyRequest): string => {
      const raw = request.cookies[SESSION_BINDING_COOKIE];
      const bound = raw ? request.unsignCookie(raw) : null;
      const sessionId = bound?.valid && bound.value ? bound.value : null;
      const accessSession = unverifiedSessionId(request.cookies[ACCESS_COOKIE]);
      if (accessSession !== null && accessSession !== sessionId) return MISMATCH;
      return sessionId ?? ANONYMOUS;
    };

    await app.register(csrfProtection, {
      csrfOpts: {
        hmacKey: createHmac('sha256', options.appSecret)
          .update('trialpulse/csrf/v1')
          .digest('base64url'),
      },
      getUserInfo: sessionBinding,
      cookieKey: CSRF_SECRET_COOKIE,
      cookieOpts: {
        path: '/',
        httpOnly: true,
        sameSite: 'strict',
        secure: options.secureCookies,
        signed: true,
      },
      getToken: (request) => request.headers[CSRF_HEADER] as string | undefined,
    });

    app.addHook('onRequest', (request, reply, done) => {
      if (SAFE_METHODS.has(request.method) || !request.url.startsWith('/api/')) return done();
      // Cookies naming two sessions never pass, whatever token comes with them.
      if (sessionBinding(request) === MISMATCH)
        return done(
          Object.assign(new Error('Invalid csrf token'), {
            code: 'FST_CSRF_INVALID_TOKEN',
            statusCode: 403,
          }),
        );
      app.csrfProtection(request, reply, done);
    });

    app.get(
      '/api/csrf-token',
      { schema: { hide: false, tags: ['system'], summary: 'Issue an anti-forgery token' } },
      async (request, reply) => {
        reply.header('cache-control', 'no-store');
        return { csrfToken: reply.generateCsrf({ userInfo: sessionBinding(request) }) };
      },
    );
  },
  { name: 'csrf', dependencies: ['@fastify/cookie'] },
);
