import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  LOGIN_MESSAGES,
  loginInputSchema,
  participantMeSchema,
  participantSignupInputSchema,
} from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import { requestMeta } from '../../lib/request-meta';
import { clearSessionCookies, setSessionCookies } from '../auth/session-tokens';
import type { HumanCheck } from '../human-check/human-check.plugin';
import { HUMAN_CHECK_ACTIONS } from '../human-check/human-check.service';
import type { MailService } from '../mail/mail.service';
import {
  PARTICIPANT_ACCOUNT_MESSAGES,
  type ParticipantAccountsService,
} from './participant-accounts.service';

export type ParticipantAccountRoutesOptions = {
  service: ParticipantAccountsService;
  mail: Pick<MailService, 'deliverPending'>;
  humanCheck: HumanCheck;
  secureCookies: boolean;
};

/**
 * Participants' own accounts (access spec §2 /ParticipantSignupPage, /ParticipantLoginPage,
 * /Participants; §7 /Participants/signup). Sign-out and refresh use the common
 * /api/auth/logout and /api/auth/refreshToken.
 */
export const participantAccountRoutes: FastifyPluginAsyncZod<
  ParticipantAccountRoutesOptions
> = async (app, options) => {
  const { service, mail, humanCheck } = options;
  const cookieSettings = { secure: options.secureCookies };

  /** preHandler: a signed-in participant account (401 without a session, 403 for staff). */
  const requireParticipant = async (request: FastifyRequest) => {
    const auth = await app.loadAuth(request);
    if (!auth) throw AppError.unauthenticated(LOGIN_MESSAGES.sessionExpired);
    if (auth.kind !== 'participant') throw AppError.forbidden();
  };

  app.post(
    '/api/Participants/signup',
    {
      schema: {
        tags: ['participant-accounts'],
        summary: 'Register a participant account',
        body: participantSignupInputSchema,
        response: { 200: z.object({ success: z.literal(true), message: z.string() }) },
      },
      config: { rateLimit: { max: 10, timeWindow: '1 hour' } },
    },
    async (request) => {
      await service.signup(request.body, requestMeta(request));
      void mail.deliverPending();
      return { success: true as const, message: PARTICIPANT_ACCOUNT_MESSAGES.signedUp };
    },
  );

  app.post(
    '/api/Participants/login',
    {
      schema: {
        tags: ['participant-accounts'],
        summary: 'Sign a participant account in',
        body: loginInputSchema,
        response: { 200: z.object({ message: z.string() }) },
      },
      config: { rateLimit: { max: 30, timeWindow: '15 minutes' } },
    },
    async (request, reply) => {
      await humanCheck.assertHuman(
        request.body.recaptchaResponse,
        request,
        HUMAN_CHECK_ACTIONS.login,
      );
      try {
        setSessionCookies(
          reply,
          await service.login(request.body, requestMeta(request)),
          cookieSettings,
        );
      } catch (error) {
        clearSessionCookies(reply, cookieSettings);
        throw error;
      }
      reply.header('cache-control', 'no-store');
      return { message: PARTICIPANT_ACCOUNT_MESSAGES.signedIn };
    },
  );

  app.get(
    '/api/Participants/me',
    {
      schema: {
        tags: ['participant-accounts'],
        summary: 'The signed-in participant account and its linked participant records',
        description: 'participantCount is 0 until the email address is confirmed.',
        response: { 200: participantMeSchema },
      },
      preHandler: requireParticipant,
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store');
      return service.me(request.auth!);
    },
  );

  app.post(
    '/api/Participants/verifyEmail',
    {
      schema: {
        tags: ['participant-accounts'],
        summary: "Confirms a participant account's email address with the emailed link's token",
        body: z.strictObject({ token: z.string().min(1).max(200) }),
        response: { 200: z.object({ message: z.string() }) },
      },
      config: { rateLimit: { max: 30, timeWindow: '15 minutes' } },
    },
    async (request) => service.verifyEmail(request.body.token, requestMeta(request)),
  );

  app.post(
    '/api/Participants/me/verificationEmail',
    {
      schema: {
        tags: ['participant-accounts'],
        summary: 'Sends a new email-confirmation link to the signed-in participant account',
        response: { 200: z.object({ message: z.string() }) },
      },
      preHandler: requireParticipant,
      config: { rateLimit: { max: 5, timeWindow: '15 minutes' } },
    },
    async (request) => service.resendVerification(request.auth!, requestMeta(request)),
  );
};
