import { z } from 'zod';
import {
  omronDataResponseSchema,
  omronQuerySchema,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { requestMeta } from '../../lib/request-meta';
import {
  caller,
  DATA_SCOPE_NOTE,
  DATA_SOURCE_NOTE,
  participantParams,
  type BrandDataRoutes,
} from '../data-calls';
import { createOmronDataCalls } from './omron-data.service';

/** The spec's Omron data call and the Sys_Admin raw page's call (device-data §7). */
export const omronDataRoutes: BrandDataRoutes = (app, context) => {
  const omron = createOmronDataCalls(context);

  app.post(
    '/api/getOmronParticipantData/:id',
    {
      schema: {
        tags: ['device-data'],
        summary:
          "The participant's Omron blood pressure or weight readings (queryStr, since, sortOrder, limit; limit 0 = all)",
        description: `${DATA_SCOPE_NOTE} ${DATA_SOURCE_NOTE} Weight is in kg.`,
        params: participantParams,
        body: omronQuerySchema,
        response: { 200: omronDataResponseSchema },
      },
      // Roles before the body is validated: a Viewer of another team learns nothing.
      preValidation: app.requireStaff({ action: 'data.view' }),
    },
    async (request) =>
      omron.data(caller(request), request.params.id, request.body, requestMeta(request)),
  );

  app.post(
    '/api/omronParticipantDataRaw/:id',
    {
      schema: {
        tags: ['device-data'],
        summary: "Sys_Admin: Omron's answer for an Omron query, fetched now",
        params: participantParams,
        body: omronQuerySchema,
        response: {
          200: z.object({ bloodPressure: z.array(z.unknown()), weight: z.array(z.unknown()) }),
        },
      },
      preValidation: app.requireStaff({ action: 'data.viewRaw' }),
    },
    async (request) =>
      omron.raw(caller(request), request.params.id, request.body, requestMeta(request)),
  );
};
