import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  fitbitWeeklySummaryPostSchema,
  fitbitWeeklySummarySchema,
  participantSyncStatusResponseSchema,
  trialLastDataResponseSchema,
} from '@trialpulse/shared';
import type { SyncStatusService } from './sync-status.service';
import type { WeeklySummaryService } from './weekly-summary.service';

const idParams = z.object({ id: z.coerce.number().int().positive() });

/**
 * Sync status for every staff role that may see the participant or trial, and the spec's
 * Fitbit weekly summary from stored readings (POST recomputes it: Sys_Admin, Admin, User).
 */
export const syncStatusRoutes: FastifyPluginAsyncZod<{
  status: SyncStatusService;
  weekly: WeeklySummaryService;
}> = async (app, { status, weekly }) => {
  const staff = app.requireStaff({ action: 'data.view' });
  const editors = app.requireStaff({ action: 'data.recompute' });
  const summaryDescription =
    'Last 7 days (today and the six before, UTC dates) against the 7 before, computed from the readings TrialPulse stores. A POST body ({email, data}) is accepted for compatibility and ignored: the server recomputes, saves and returns the summary (decision 0038).';
  app.get(
    '/api/fitbitDataLocalDB/:id',
    {
      preHandler: staff,
      schema: {
        tags: ['devices'],
        summary: 'The Fitbit weekly summary',
        description: summaryDescription,
        params: idParams,
        response: { 200: fitbitWeeklySummarySchema },
      },
    },
    async (request) => weekly.get(request.auth!, request.params.id),
  );
  app.post(
    '/api/fitbitDataLocalDB/:id',
    {
      preHandler: editors,
      schema: {
        tags: ['devices'],
        summary: 'Recompute the Fitbit weekly summary',
        description: summaryDescription,
        params: idParams,
        body: fitbitWeeklySummaryPostSchema,
        response: { 200: fitbitWeeklySummarySchema },
      },
    },
    async (request) => weekly.recompute(request.auth!, request.params.id),
  );
  app.get(
    '/api/deviceSync/participant/:id',
    {
      preHandler: staff,
      schema: {
        tags: ['devices'],
        summary: 'Device-data sync status of a participant’s connections',
        description:
          'State (backfilling n %, up to date, backing off until…, needs re-consent, error type), last sync, earliest and latest reading, rows stored. A participant the caller may not see answers 404.',
        params: idParams,
        response: { 200: participantSyncStatusResponseSchema },
      },
    },
    async (request) => ({
      connections: await status.participantStatus(request.auth!, request.params.id),
    }),
  );
  app.get(
    '/api/deviceSync/trial/:id/lastData',
    {
      preHandler: staff,
      schema: {
        tags: ['devices'],
        summary: 'The latest stored reading per participant of a trial',
        params: idParams,
        response: { 200: trialLastDataResponseSchema },
      },
    },
    async (request) => status.trialLastData(request.auth!, request.params.id),
  );
};
