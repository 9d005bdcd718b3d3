import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { rowIdSchema } from '@trialpulse/shared';
import { requestMeta } from '../../lib/request-meta';
import { caller } from '../data-calls';
import type { FitbitRawService } from './fitbit-raw.service';

type Options = { fitbitRaw: FitbitRawService };

/**
 * /FitbitParticipantDataRaw's upstream call (Sys_Admin; decision 0068): the provider's own
 * answer for a data page resource path, fetched now. Another team → 404.
 */
export const fitbitRawRoutes: FastifyPluginAsyncZod<Options> = async (app, { fitbitRaw }) => {
  app.get(
    '/api/fitbitParticipantDataRaw/:participantId/*',
    {
      schema: {
        tags: ['device-data'],
        summary:
          "Sys_Admin: the Fitbit upstream's own answer (legacy API or Google Health) for a resource path, fetched now",
        params: z.object({ participantId: rowIdSchema(), '*': z.string() }),
        response: {
          200: z.object({
            upstream: z.enum(['google-health', 'fitbit-legacy']),
            request: z.string(),
            answer: z.unknown(),
          }),
        },
      },
      // Roles before anything else: a non-Sys_Admin learns nothing about the path.
      preValidation: app.requireStaff({ action: 'data.viewRaw' }),
    },
    async (request) =>
      fitbitRaw.get(
        caller(request),
        request.params.participantId,
        request.params['*'],
        requestMeta(request),
      ),
  );
};
