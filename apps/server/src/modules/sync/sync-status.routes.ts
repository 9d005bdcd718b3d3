import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { participantSyncStatusResponseSchema, trialLastDataResponseSchema } from '@trialpulse/shared';
import type { SyncStatusService } from './sync-status.service';

const idParams = z.object({ id: z.coerce.number().int().positive() });

/** Sync status for every staff role that may see the participant or trial. */
export const syncStatusRoutes: FastifyPluginAsyncZod<{ status: SyncStatusService }> = async (app, { status }) => {
  const staff = app.requireStaff({ action: 'data.view' });
  app.get(
    '/api/deviceSync/participant/:id',
    {
      preHandler: staff,
      schema: {
        tags: ['devices'],
        summary: 'Device-data sync status of a participant’s connections',
        description: 'State (backfilling n %, up to date, backing off until…, needs re-consent, error type), last sync, earliest and latest reading, rows stored. A participant the caller may not see answers 404.',
        params: idParams,
        response: { 200: participantSyncStatusResponseSchema },
      },
    },
    async (request) => ({ connections: await status.participantStatus(request.auth!, request.params.id) }),
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
