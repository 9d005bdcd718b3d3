import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LIMITS, validateTotpInputSchema, verifyTotpInputSchema } from '@trialpulse/shared';
import { requestMeta } from '../../lib/request-meta';
import {
  REMEMBER_DEVICE_COOKIE,
  clearSessionCookies,
  setSessionCookies,
} from '../auth/session-tokens';
import { AppError } from '../../lib/errors';
import type { SfaService } from './sfa.service';

type Options = { service: SfaService; secureCookies: boolean };
const successSchema = z.object({ success: z.boolean(), message: z.string().optional() });

/** The second-factor calls of access spec §7. */
export const sfaRoutes: FastifyPluginAsyncZod<Options> = async (
  app,
  { service, secureCookies },
) => {
  const pending = app.requireStaff({ allowPendingSecondFactor: true, allowMissingRole: true });
  const codeLimit = { rateLimit: { max: 20, timeWindow: '15 minutes' } };
  const auth = (request: { auth: unknown }) => {
    if (!request.auth) throw AppError.unauthenticated();
    return request.auth as NonNullable<Parameters<typeof service.setup>[0]>;
  };

  app.get(
    '/api/auth/secondFactorSetup',
    {
      schema: {
        tags: ['sfa'],
        summary: 'New authenticator secret as QR image and key',
        response: { 200: z.object({ qrImage: z.string(), key: z.string() }) },
      },
      preHandler: pending,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.setup(auth(request), requestMeta(request));
    },
  );

  app.post(
    '/api/auth/verifyTOTP',
    {
      schema: {
        tags: ['sfa'],
        summary: 'Confirm the authenticator set-up',
        body: verifyTotpInputSchema,
        response: { 200: successSchema },
      },
      preHandler: pending,
      config: codeLimit,
    },
    async (request, reply) => {
      const result = await service.verify(
        auth(request),
        request.body.sfaToken,
        requestMeta(request),
      );
      clearSessionCookies(reply, { secure: secureCookies });
      return result;
    },
  );

  app.post(
    '/api/auth/validateTOTP',
    {
      schema: {
        tags: ['sfa'],
        summary: 'Validate the second factor of this sign-in',
        body: validateTotpInputSchema,
        response: { 200: successSchema },
      },
      preHandler: pending,
      config: codeLimit,
    },
    async (request, reply) => {
      const { rememberToken, issued } = await service.validate(
        auth(request),
        request.body.sfaToken,
        request.body.skipSFA,
        requestMeta(request),
      );
      // A new session (id and tokens) from here on; the pre-second-factor one has ended.
      if (issued) setSessionCookies(reply, issued, { secure: secureCookies });
      if (rememberToken) {
        reply.setCookie(REMEMBER_DEVICE_COOKIE, rememberToken, {
          httpOnly: true,
          sameSite: 'strict',
          secure: secureCookies,
          path: '/api/auth',
          maxAge: LIMITS.rememberDeviceHours * 3600,
        });
      }
      return { success: true };
    },
  );

  app.post(
    '/api/auth/generateSendEmailTOTP',
    {
      schema: { tags: ['sfa'], summary: 'Email a sign-in code', response: { 200: successSchema } },
      preHandler: pending,
      config: { rateLimit: { max: 5, timeWindow: '15 minutes' } },
    },
    async (request) => service.sendEmailCode(auth(request), requestMeta(request)),
  );

  app.post(
    '/api/auth/resetSFA',
    {
      schema: {
        tags: ['sfa'],
        summary: 'Remove the second factor (set it up again)',
        response: { 200: successSchema },
      },
      preHandler: pending,
    },
    async (request, reply) => {
      const issued = await service.reset(auth(request), requestMeta(request));
      setSessionCookies(reply, issued, { secure: secureCookies });
      reply.clearCookie(REMEMBER_DEVICE_COOKIE, { path: '/api/auth' });
      return { success: true };
    },
  );

  const isValidated = {
    schema: {
      tags: ['sfa'],
      summary: 'Whether this session passed the second factor',
      response: { 200: successSchema },
    },
    preHandler: pending,
  };
  const isValidatedHandler = async (request: { auth: unknown }) => ({
    success: auth(request).authStatus === 'Authorized',
  });
  // The spec writes the path with a double slash; both spellings answer.
  app.get('/api/auth/isSfaAlreadyValidated', isValidated, isValidatedHandler);
  app.get('/api/auth//isSfaAlreadyValidated', isValidated, isValidatedHandler);
};
