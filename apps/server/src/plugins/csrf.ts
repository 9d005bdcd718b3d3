import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import csrfProtection from '@fastify/csrf-protection';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_SECRET_COOKIE = 'tp_csrf_secret';

/**
 * Anti-forgery tokens for every state-changing API call. `GET /api/csrf-token` hands out a
 * token derived from a secret kept in a signed httpOnly cookie; every POST/PUT/PATCH/DELETE
 * under /api must echo it in the `x-csrf-token` header. Failures become 403 through the
 * error handler.
 */
export const csrfPlugin = fp(
  async (app: FastifyInstance, options: { secureCookies: boolean }) => {
    await app.register(csrfProtection, {
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
      app.csrfProtection(request, reply, done);
    });

    app.get(
      '/api/csrf-token',
      { schema: { hide: false, tags: ['system'], summary: 'Issue an anti-forgery token' } },
      async (_request, reply) => {
        reply.header('cache-control', 'no-store');
        return { csrfToken: reply.generateCsrf() };
      },
    );
  },
  { name: 'csrf', dependencies: ['@fastify/cookie'] },
);
