import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  ROLES,
  approveSignUpInputSchema,
  signupInputSchema,
  signupRequestValidationInputSchema,
} from '@trialpulse/shared';
import { requestMeta } from '../../lib/request-meta';
import type { HumanCheck } from '../human-check/human-check.plugin';
import { HUMAN_CHECK_ACTIONS } from '../human-check/human-check.service';
import type { MailService } from '../mail/mail.service';
import { SIGNUP_SUCCESS, type SignupService } from './signup.service';

export type SignupRoutesOptions = {
  service: SignupService;
  mail: Pick<MailService, 'deliverPending'>;
  humanCheck: HumanCheck;
};

/**
 * Teams list, sign-up approval (invitation), invitation check and staff sign-up (access
 * spec §2, §7 /team, /userSignUpPermission/*, /users/signup).
 */
export const signupRoutes: FastifyPluginAsyncZod<SignupRoutesOptions> = async (
  app,
  { service, mail, humanCheck },
) => {
  const sysAdminOnly = app.requireStaff({ action: 'signup.approve' });

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
      void mail.deliverPending();
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
          200: z.object({
            email: z.string(),
            role: z.enum(ROLES),
            teamId: z.number().int(),
            teamName: z.string(),
          }),
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
          200: z.object({
            success: z.literal(true),
            message: z.string(),
            data: z.object({ redirectTo: z.string() }),
          }),
        },
      },
      config: { rateLimit: { max: 10, timeWindow: '15 minutes' } },
    },
    async (request) => {
      await humanCheck.assertHuman(
        request.body.recaptchaResponse,
        request,
        HUMAN_CHECK_ACTIONS.signup,
      );
      // The body schema strips teamId, teamName and role: they come from the invitation only.
      await service.signup(request.body, requestMeta(request));
      return SIGNUP_SUCCESS;
    },
  );
};
