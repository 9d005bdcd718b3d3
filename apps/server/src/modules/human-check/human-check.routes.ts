import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HUMAN_CHECK_ACTIONS, type HumanCheckService } from './human-check.service';

export const humanCheckConfigResponseSchema = z.object({
  provider: z.enum(['altcha', 'recaptcha']),
  siteKey: z.string().nullable(),
});

export const altchaChallengeSchema = z.object({
  algorithm: z.string(),
  challenge: z.string(),
  maxnumber: z.number().int().optional(),
  salt: z.string(),
  signature: z.string(),
});

export const humanCheckRoutes: FastifyPluginAsyncZod<{ service: HumanCheckService }> = async (
  app,
  { service },
) => {
  app.get(
    '/api/humanCheck/config',
    {
      schema: {
        tags: ['human-check'],
        summary: 'Which human check the forms use, and the reCAPTCHA site key',
        response: { 200: humanCheckConfigResponseSchema },
      },
    },
    async () => ({ provider: service.provider, siteKey: service.siteKey }),
  );

  app.get(
    '/api/humanCheck/challenge',
    {
      schema: {
        tags: ['human-check'],
        summary: 'A signed proof-of-work challenge for the altcha widget (expires in 10 minutes)',
        response: { 200: altchaChallengeSchema },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      return altchaChallengeSchema.parse(await service.createChallenge());
    },
  );

  app.post(
    '/api/recaptchaVer3Verify',
    {
      schema: {
        tags: ['human-check'],
        summary: `Checks a human-check token (action "${HUMAN_CHECK_ACTIONS.changePassword}"); an ALTCHA payload is spent`,
        // Optional here so a missing token gets the human-check answer, not a field error.
        body: z.object({ recaptchaResponse: z.string().optional() }),
        response: { 200: z.object({ success: z.literal(true) }) },
      },
      config: { rateLimit: { max: 20, timeWindow: '1 minute' } },
    },
    async (request) => {
      await service.assertHuman(request.body.recaptchaResponse, {
        ip: request.ip,
        action: HUMAN_CHECK_ACTIONS.changePassword,
      });
      return { success: true as const };
    },
  );
};
