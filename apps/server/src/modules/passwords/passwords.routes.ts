import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  RESET_MESSAGES,
  changePasswordInputSchema,
  forgotPasswordInputSchema,
  resetPasswordInputSchema,
  resetPasswordValidationInputSchema,
} from '@trialpulse/shared';
import { requestMeta } from '../../lib/request-meta';
import { clearSessionCookies } from '../auth/session-tokens';
import type { HumanCheck } from '../human-check/human-check.plugin';
import { HUMAN_CHECK_ACTIONS } from '../human-check/human-check.service';
import type { MailService } from '../mail/mail.service';
import type { PasswordsService } from './passwords.service';

export type PasswordRoutesOptions = {
  service: PasswordsService;
  mail: Pick<MailService, 'deliverPending'>;
  humanCheck: HumanCheck;
  secureCookies: boolean;
};

export const PASSWORD_CHANGED_MESSAGE = 'Your password has been changed. Please log in again.';

const messageSchema = z.object({ message: z.string() });

/**
 * Change password (signed in), forgotten password, reset by emailed link (access spec §2,
 * §7 /auth/changePwdReq, /auth/forgotPassword, /auth/resetPasswordValidation,
 * /auth/resetPassword).
 */
export const passwordRoutes: FastifyPluginAsyncZod<PasswordRoutesOptions> = async (
  app,
  options,
) => {
  const { service, mail, humanCheck } = options;
  const cookieSettings = { secure: options.secureCookies };

  app.post(
    '/api/auth/changePwdReq',
    {
      schema: {
        tags: ['auth'],
        summary: 'Change the signed-in user’s password (ends every session)',
        body: changePasswordInputSchema,
        response: { 200: messageSchema },
      },
      preHandler: app.requireStaff(),
      config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      await service.changePassword(request.auth!, request.body, requestMeta(request));
      // Spec §2: after success the user is logged out (token_version ended the session).
      clearSessionCookies(reply, cookieSettings);
      reply.header('cache-control', 'no-store');
      return { message: PASSWORD_CHANGED_MESSAGE };
    },
  );

  app.post(
    '/api/auth/forgotPassword',
    {
      schema: {
        tags: ['auth'],
        summary: 'Email a password-reset link (same answer whether or not the account exists)',
        body: forgotPasswordInputSchema,
        response: { 200: messageSchema },
      },
      config: { rateLimit: { max: 5, timeWindow: '15 minutes' } },
    },
    async (request) => {
      await humanCheck.assertHuman(
        request.body.recaptchaResponse,
        request,
        HUMAN_CHECK_ACTIONS.forgotPassword,
      );
      const { mailQueued } = await service.requestReset(request.body.email, requestMeta(request));
      if (mailQueued) void mail.deliverPending();
      return { message: RESET_MESSAGES.requestConfirmation };
    },
  );

  app.post(
    '/api/auth/resetPasswordValidation',
    {
      schema: {
        tags: ['auth'],
        summary: 'Check a password-reset link',
        body: resetPasswordValidationInputSchema,
        response: { 200: z.object({ userId: z.number().int() }) },
      },
      config: { rateLimit: { max: 30, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.validateResetToken(request.body.token);
    },
  );

  app.post(
    '/api/auth/resetPassword',
    {
      schema: {
        tags: ['auth'],
        summary: 'Set a new password with a reset link (the link works once)',
        body: resetPasswordInputSchema,
        response: { 200: messageSchema },
      },
      config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      await service.resetPassword(request.body, requestMeta(request));
      clearSessionCookies(reply, cookieSettings);
      reply.header('cache-control', 'no-store');
      return { message: RESET_MESSAGES.success };
    },
  );
};
