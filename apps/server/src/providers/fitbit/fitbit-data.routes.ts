import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rowIdSchema } from '@trialpulse/shared';
import { fitbitDataResponseSchema } from '@trialpulse/shared/device-data/fitbit-shapes';
import { requestMeta } from '../../lib/request-meta';
import { caller } from '../data-calls';
import type { FitbitDataService } from './fitbit-data.service';

type Options = { fitbitData: FitbitDataService };

const params = z.object({
  participantId: rowIdSchema(),
  email: z.string().min(1),
  '*': z.string(),
});

/**
 * The Fitbit data page's one data call (device-data spec §7): every staff role, for
 * participants of trials the caller can see (another team or trial → 404). The email
 * segment is redacted from request logs (lib/logger.ts).
 */
export const fitbitDataRoutes: FastifyPluginAsyncZod<Options> = async (app, { fitbitData }) => {
  app.get(
    '/api/getFitbitServerParticipantData/:participantId/:email/*',
    {
      schema: {
        tags: ['device-data'],
        summary:
          "A participant's Fitbit data in the legacy Fitbit Web API's shape (stored when sync covers the range, else live)",
        params,
        querystring: z.record(z.string(), z.string()).optional(),
        response: { 200: fitbitDataResponseSchema },
      },
      preHandler: app.requireStaff({ action: 'data.view' }),
    },
    async (request) =>
      fitbitData.get(
        caller(request),
        request.params.participantId,
        request.params.email,
        request.params['*'],
        requestMeta(request),
        request.query ?? {},
      ),
  );
};
