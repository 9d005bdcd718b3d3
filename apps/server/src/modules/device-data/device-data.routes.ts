import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { calendarDateTimeSchema, listQuerySchema, pagedSchema } from '@trialpulse/shared';
import {
  STORED_READING_SORT_COLUMNS,
  dexcomDataResponseSchema,
  omronDataResponseSchema,
  omronQuerySchema,
  participantOverviewSchema,
  readingsBrandPathSchema,
  storedReadingSchema,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { DeviceDataService } from './device-data.service';

type Options = { deviceData: DeviceDataService };

const participantParams = z.object({ id: z.coerce.number().int().positive() });
const SCOPE_NOTE =
  'Every staff role, for participants it can see; a participant of another team, or of a trial a User or Viewer is not a trial user of, answers 404.';
const SOURCE_NOTE =
  'Answered from stored readings when the sync covers the range (`source: "stored"`), otherwise from the provider (`source: "live"`); both answers are alike.';

const readingsQuerySchema = listQuerySchema(STORED_READING_SORT_COLUMNS).and(
  z.object({
    metric: z.string().max(64).optional(),
    from: calendarDateTimeSchema().optional(),
    to: calendarDateTimeSchema().optional(),
  }),
);

/**
 * The device data calls (device-data §7; decision 0055): Omron and Dexcom data, stored
 * readings with provenance for /ParticipantDataPage and the raw pages, and the participant
 * overview. Brand-specific code lives in `omron-data.ts` / `dexcom-data.ts`.
 */
export const deviceDataRoutes: FastifyPluginAsyncZod<Options> = async (app, { deviceData }) => {
  const readers = app.requireStaff({ action: 'data.view' });
  const sysAdmins = app.requireStaff({ action: 'data.viewRaw' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;

  app.post(
    '/api/getOmronParticipantData/:id',
    {
      schema: {
        tags: ['device-data'],
        summary:
          "The participant's Omron blood pressure or weight readings (queryStr, since, sortOrder, limit; limit 0 = all)",
        description: `${SCOPE_NOTE} ${SOURCE_NOTE} Weight is in kg.`,
        params: participantParams,
        body: omronQuerySchema,
        response: { 200: omronDataResponseSchema },
      },
      // Roles before the body is validated: a Viewer of another team learns nothing.
      preValidation: readers,
    },
    async (request) =>
      deviceData.omronData(caller(request), request.params.id, request.body, requestMeta(request)),
  );

  app.get(
    '/api/getDexcomParticipantData/:id/:query',
    {
      schema: {
        tags: ['device-data'],
        summary: "The participant's Dexcom glucose readings, events, calibrations and device info",
        description: `${SCOPE_NOTE} ${SOURCE_NOTE} \`query\` is one URL-encoded segment: startDate=YYYY-MM-DD[Thh:mm:ss]&endDate=…[&records=egvs,events,calibrations,devices] (UTC, end exclusive, a bare end date includes that day, at most 90 days).`,
        params: participantParams.extend({ query: z.string().max(300) }),
        response: { 200: dexcomDataResponseSchema },
      },
      preValidation: readers,
    },
    async (request) =>
      deviceData.dexcomData(
        caller(request),
        request.params.id,
        request.params.query,
        requestMeta(request),
      ),
  );

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

  // --- Sys_Admin raw pages: the provider's own answer -------------------------------------
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
      preValidation: sysAdmins,
    },
    async (request) =>
      deviceData.omronRaw(caller(request), request.params.id, request.body, requestMeta(request)),
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
      preValidation: sysAdmins,
    },
    async (request) =>
      deviceData.dexcomRaw(
        caller(request),
        request.params.id,
        request.params.query,
        requestMeta(request),
      ),
  );
};
