import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  currentUserResponseSchema,
  loginInputSchema,
  loginResponseSchema,
  sessionStatusResponseSchema,
} from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import { requestMeta } from '../../lib/request-meta';
import type { HumanCheck } from '../human-check/human-check.plugin';
import type { AuthService, IssuedSession, RequestMeta } from './auth.service';
import {
  REFRESH_COOKIE,
  REMEMBER_DEVICE_COOKIE,
  clearSessionCookies,
  setSessionCookies,
} from './session-tokens';

type Options = { service: AuthService; humanCheck: HumanCheck; secureCookies: boolean };

/** A sign-in's meta: the remembered-device cookie decides whether the second factor is asked. */
const signInMeta = (request: FastifyRequest): RequestMeta => ({
  ...requestMeta(request),
  rememberToken: request.cookies[REMEMBER_DEVICE_COOKIE],
});

/** Sign-in, session refresh, sign-out and the current user (access spec §7 /auth calls). */
export const authRoutes: FastifyPluginAsyncZod<Options> = async (
  app,
  { service, humanCheck, secureCookies },
) => {
  const cookieSettings = { secure: secureCookies };
  const sendSession = (reply: FastifyReply, issued: IssuedSession) =>
    setSessionCookies(reply, issued, cookieSettings);

  app.post(
    '/api/auth/login',
    {
      schema: {
        tags: ['auth'],
        summary: 'Sign in with username, password and human check',
        body: loginInputSchema,
        response: { 200: loginResponseSchema },
      },
      config: { rateLimit: { max: 30, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      await humanCheck.assertHuman(request.body.recaptchaResponse, request, 'login');
      try {
        const issued = await service.login(request.body, signInMeta(request));
        sendSession(reply, issued);
        reply.header('cache-control', 'no-store');
        return { message: 'Login successful', user: issued.auth.user };
      } catch (error) {
        // Spec: the user is logged out on a failed sign-in.
        clearSessionCookies(reply, cookieSettings);
        throw error;
      }
    },
  );

  app.post(
    '/api/auth/refreshToken',
    {
      schema: {
        tags: ['auth'],
        summary: 'Rotate the refresh token',
        response: { 200: z.object({ message: z.string() }) },
      },
      config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
    },
    async (request, reply) => {
      try {
        sendSession(
          reply,
          await service.refresh(request.cookies[REFRESH_COOKIE], requestMeta(request)),
        );
      } catch (error) {
        clearSessionCookies(reply, cookieSettings);
        throw error;
      }
      reply.header('cache-control', 'no-store');
      return { message: 'Token refreshed' };
    },
  );

  app.post(
    '/api/auth/logout',
    { schema: { tags: ['auth'], summary: 'Sign out (ends the session)' } },
    async (request, reply) => {
      await service.logout(await app.loadAuth(request), requestMeta(request));
      clearSessionCookies(reply, cookieSettings);
      return reply.code(204).send();
    },
  );

  const currentUser = async (request: FastifyRequest, reply: FastifyReply) => {
    const auth = request.auth;
    if (!auth) throw AppError.unauthenticated();
    reply.header('cache-control', 'no-store');
    if (auth.authStatus !== 'Authorized') {
      // Spec §4: a 403 carrying the status keeps the user and sets the status.
      throw AppError.forbidden('The second factor is required.', {
        reason: 'SFA_REQUIRED',
        user: auth.user,
      });
    }
    return { message: 'User is logged in', user: auth.user };
  };
  const currentUserOptions = {
    schema: {
      tags: ['auth'],
      summary: 'The signed-in user',
      response: { 200: currentUserResponseSchema },
    },
    preHandler: app.requireStaff({ allowPendingSecondFactor: true, allowMissingRole: true }),
  };
  app.get('/api/auth/user', currentUserOptions, currentUser);
  app.get('/api/auth/login/', currentUserOptions, currentUser);

  // The web app's session probe (decision 0195): the same facts as the two calls above,
  // but "no session" and "second factor pending" are answers, not 401/403 failures that
  // every visit to the login page would log in the browser console.
  app.get(
    '/api/auth/session',
    {
      schema: {
        tags: ['auth'],
        summary: 'Whether a staff session is present (always 200)',
        response: { 200: sessionStatusResponseSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      const auth = await app.loadAuth(request);
      if (!auth || auth.kind !== 'staff') return { signedIn: false as const, user: null };
      return { signedIn: true as const, user: auth.user };
    },
  );
};
