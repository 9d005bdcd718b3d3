import { z } from 'zod';
import { dexcomDataResponseSchema } from '@trialpulse/shared/device-data/device-data.schemas';
import { requestMeta } from '../../lib/request-meta';
import {
  caller,
  DATA_SCOPE_NOTE,
  DATA_SOURCE_NOTE,
  participantParams,
  type BrandDataRoutes,
} from '../data-calls';
import { createDexcomDataCalls } from './dexcom-data.service';

/** The spec's Dexcom data call and the Sys_Admin raw page's call (device-data §7). */
export const dexcomDataRoutes: BrandDataRoutes = (app, context) => {
  const dexcom = createDexcomDataCalls(context);

  app.get(
    '/api/getDexcomParticipantData/:id/:query',
    {
      schema: {
        tags: ['device-data'],
        summary: "The participant's Dexcom glucose readings, events, calibrations and device info",
        description: `${DATA_SCOPE_NOTE} ${DATA_SOURCE_NOTE} \`query\` is one URL-encoded segment: startDate=YYYY-MM-DD[Thh:mm:ss]&endDate=…[&records=egvs,events,calibrations,devices] (UTC, end exclusive, a bare end date includes that day, at most 90 days).`,
        params: participantParams.extend({ query: z.string().max(300) }),
        response: { 200: dexcomDataResponseSchema },
      },
      preValidation: app.requireStaff({ action: 'data.view' }),
    },
    async (request) =>
      dexcom.data(caller(request), request.params.id, request.params.query, requestMeta(request)),
  );

  app.get(
    '/api/dexcomParticipantDataRaw/:id/:query',
    {
      schema: {
        tags: ['device-data'],
        summary: "Sys_Admin: Dexcom's records for a Dexcom query, fetched now",
        params: participantParams.extend({ query: z.string().max(300) }),
        response: {
          200: z.object({
            egvs: z.array(z.unknown()),
            events: z.array(z.unknown()),
            calibrations: z.array(z.unknown()),
          }),
        },
      },
      preValidation: app.requireStaff({ action: 'data.viewRaw' }),
    },
    async (request) =>
      dexcom.raw(caller(request), request.params.id, request.params.query, requestMeta(request)),
  );
};
