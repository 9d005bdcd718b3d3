import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ROLES,
  approveSignUpInputSchema,
  signupInputSchema,
  signupRequestValidationInputSchema,
} from '@trialpulse/shared';
import type { Config } from '../../config/env';
import type { Database } from '../../db/client';
import type { Clock } from '../../lib/clock';
import type { PasswordHasher } from '../../lib/passwords';
import type { AuthService } from '../auth/auth.service';
import { requestMeta } from '../auth/auth.routes';
import { HUMAN_CHECK_ACTIONS } from '../human-check/human-check.service';
import { createSignupRepository } from './signup.repository';
import { SIGNUP_SUCCESS, createSignupService } from './signup.service';

export type SignupRoutesOptions = {
  config: Config;
  database: Database;
  clock: Clock;
  hasher: PasswordHasher;
  authService: AuthService;
  secureCookies: boolean;
};

/**
 * Teams list, sign-up approval (invitation), invitation check and staff sign-up (access
 * spec §2, §7 /team, /userSignUpPermission/*, /users/signup).
 */
export const signupRoutes: FastifyPluginAsyncZod<SignupRoutesOptions> = async (app, options) => {
  const service = createSignupService({
    repository: createSignupRepository(options.database.db),
    hasher: options.hasher,
    clock: options.clock,
    mail: app.mail,
    publicUrl: options.config.PUBLIC_URL.replace(/\/+$/, ''),
  });
  const sysAdminOnly = app.requireStaff({ roles: ['Sys_Admin'] });

  app.get(
    '/api/team',
    {
      schema: {
        tags: ['signup'],
        summary: 'Every team (sign-up approval page)',
        response: { 200: z.array(z.object({ team_id: z.number().int(), team_name: z.string() })) },
      },
      preHandler: sysAdminOnly,
    },
    async () => service.listTeams(),
  );

  app.post(
    '/api/userSignUpPermission/approveSignUp',
    {
      schema: {
        tags: ['signup'],
        summary: 'Approve a sign-up: email a single-use invitation link (Sys_Admin)',
        body: approveSignUpInputSchema,
        response: { 200: z.object({ message: z.string() }) },
      },
      preHandler: sysAdminOnly,
      config: { rateLimit: { max: 60, timeWindow: '1 hour' } },
    },
    async (request) => {
      const result = await service.approveSignUp(request.auth!, request.body, requestMeta(request));
      void app.mail.deliverPending();
      return result;
    },
  );

  app.post(
    '/api/userSignUpPermission/signupRequestValidation',
    {
      schema: {
        tags: ['signup'],
        summary: 'Check an invitation link; answers what it grants',
        body: signupRequestValidationInputSchema,
        response: {
          200: z.object({ email: z.string(), role: z.enum(ROLES), teamId: z.number().int(), teamName: z.string() }),
        },
      },
      config: { rateLimit: { max: 30, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.validateInvitation(request.body.token);
    },
  );

  app.post(
    '/api/users/signup',
    {
      schema: {
        tags: ['signup'],
        summary: 'Create a staff account from an invitation link',
        body: signupInputSchema,
        response: {
          200: z.object({ success: z.literal(true), message: z.string(), data: z.object({ redirectTo: z.string() }) }),
        },
      },
      config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
    },
    async (request) => {
      await app.humanCheck.assertHuman(request.body.recaptchaResponse, request, HUMAN_CHECK_ACTIONS.signup);
      // The body schema strips teamId, teamName and role: they come from the invitation only.
      await service.signup(request.body, requestMeta(request));
      return SIGNUP_SUCCESS;
    },
  );
};
