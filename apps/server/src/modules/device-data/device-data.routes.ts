import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { calendarDateTimeSchema, listQuerySchema, pagedSchema } from '@trialpulse/shared';
import {
  STORED_READING_SORT_COLUMNS,
  participantOverviewSchema,
  readingsBrandPathSchema,
  storedReadingSchema,
} from '@trialpulse/shared/device-data/device-data.schemas';
import {
  DATA_SCOPE_NOTE as SCOPE_NOTE,
  PROVIDER_PLUGINS,
  participantParams,
} from '../../providers';
import type { AuthContext } from '../auth/session-context';
import type { DeviceDataService } from './device-data.service';

type Options = { deviceData: DeviceDataService };

const readingsQuerySchema = listQuerySchema(STORED_READING_SORT_COLUMNS).and(
  z.object({
    metric: z.string().max(64).optional(),
    from: calendarDateTimeSchema().optional(),
    to: calendarDateTimeSchema().optional(),
  }),
);

/**
 * The device data calls (device-data §7; decisions 0055, 0140): each brand's own data calls
 * and raw-page calls, which its provider plugin registers (`dataRoutes`, in the brand's
 * provider folder), stored readings with provenance for /ParticipantDataPage and the raw
 * pages, and the participant overview.
 */
export const deviceDataRoutes: FastifyPluginAsyncZod<Options> = async (app, { deviceData }) => {
  const readers = app.requireStaff({ action: 'data.view' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;

  for (const plugin of PROVIDER_PLUGINS) plugin.dataRoutes?.(app, deviceData.brandData);

  app.get(
    '/api/participantReadings/:id/:brand',
    {
      schema: {
        tags: ['device-data'],
        summary:
          "One page of the participant's stored readings of a brand, newest first, with provenance",
        description: `${SCOPE_NOTE} Always paged (pageIndex, pageSize 10–50); optional metric, from, to.`,
        params: participantParams.extend({ brand: readingsBrandPathSchema }),
        querystring: readingsQuerySchema,
        response: { 200: pagedSchema(storedReadingSchema) },
      },
      preValidation: readers,
    },
    async (request) => {
      const { metric, from, to, ...list } = request.query;
      return deviceData.storedReadings(
        caller(request),
        request.params.id,
        request.params.brand,
        list,
        {
          ...(metric && { metricKeys: [metric] }),
          ...(from && { from: new Date(from) }),
          ...(to && { to: new Date(to) }),
        },
      );
    },
  );

  app.get(
    '/api/participantOverview/:id',
    {
      schema: {
        tags: ['device-data'],
        summary:
          'Per allowed brand, the stored metrics with count, first and last reading and last value',
        description: SCOPE_NOTE,
        params: participantParams,
        response: { 200: participantOverviewSchema },
      },
      preValidation: readers,
    },
    async (request) => deviceData.overview(caller(request), request.params.id),
  );
};
