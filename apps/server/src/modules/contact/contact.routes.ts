import { CONTACT_MESSAGES, contactInputSchema } from '@trialpulse/shared';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requestMeta } from '../../lib/request-meta';
import type { HumanCheck } from '../human-check/human-check.plugin';
import { HUMAN_CHECK_ACTIONS } from '../human-check/human-check.service';
import type { ContactService } from './contact.service';

export const contactResponseSchema = z.object({ success: z.literal(true), message: z.string() });

// The token is checked by the human check (so a missing one answers HUMAN_CHECK_FAILED);
// every other field keeps the shared schema and its spec messages.
const contactBodySchema = contactInputSchema.extend({ recaptchaResponse: z.string().optional() });

/** POST /api/contactUs: the public contact form (access spec §5, §7, §8). */
export const contactRoutes: FastifyPluginAsyncZod<{
  service: ContactService;
  humanCheck: HumanCheck;
}> = async (app, { service, humanCheck }) => {
  app.post(
    '/api/contactUs',
    {
      schema: {
        tags: ['contact'],
        summary: 'Send a message to support (human check; 5 per 15 minutes per IP)',
        body: contactBodySchema,
        response: { 200: contactResponseSchema },
      },
      config: { rateLimit: { max: 5, timeWindow: '15 minutes' } },
    },
    async (request) => {
      const { recaptchaResponse, ...message } = request.body;
      await humanCheck.assertHuman(recaptchaResponse, request, HUMAN_CHECK_ACTIONS.contact);
      await service.sendMessage(message, requestMeta(request));
      return { success: true as const, message: CONTACT_MESSAGES.sent };
    },
  );
};
