import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  exportDeviceSchema,
  exportJobsQuerySchema,
  exportJobsResponseSchema,
  exportMetricSchema,
  exportParticipantSchema,
  exportTrialSchema,
  makeExportRequestSchema,
} from '@trialpulse/shared';
import type { Clock } from '../../lib/clock';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { ExportService } from './export.service';

type Options = { exports: ExportService; clock: Clock };

/**
 * The server's "today" for the §5 date rules: the calendar date at UTC+14, the latest on
 * earth, so no user's own today counts as the future (decision 0045).
 */
export function serverExportBounds(now: Date) {
  return { today: new Date(now.getTime() + 14 * 60 * 60 * 1000).toISOString().slice(0, 10) };
}

const idParam = z.coerce.number().int();

/**
 * Batch data export (device-data spec §7 "Batch export"): /DataExport's eight calls.
 * Sys_Admin, Admin and User; a Viewer gets 403.
 */
export const exportRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const { exports, clock } = options;
  const exporters = app.requireStaff({ action: 'export.create' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;
  const meta = requestMeta;
  const requestSchema = makeExportRequestSchema(() => serverExportBounds(clock.now()));
  const tags = ['export'];

  app.get(
    '/api/dataExport/trials',
    {
      schema: {
        tags,
        summary: 'Trials the caller may export from',
        response: { 200: z.array(exportTrialSchema) },
      },
      preHandler: exporters,
    },
    async (request) => exports.trials(caller(request)),
  );

  app.get(
    '/api/dataExport/devices',
    {
      schema: {
        tags,
        summary: "The team's supported devices (export device: id, friendlyName)",
        response: { 200: z.array(exportDeviceSchema) },
      },
      preHandler: exporters,
    },
    async (request) => exports.devices(caller(request)),
  );

  app.get(
    '/api/dataExport/trials/:trialId/participants/:deviceId',
    {
      schema: {
        tags,
        summary:
          "A trial's participants with a connection to, or stored data of, the device's brand",
        params: z.object({ trialId: idParam, deviceId: idParam }),
        response: { 200: z.array(exportParticipantSchema) },
      },
      preHandler: exporters,
    },
    async (request) =>
      exports.participants(caller(request), request.params.trialId, request.params.deviceId),
  );

  app.get(
    '/api/dataExport/metrics/:deviceId',
    {
      schema: {
        tags,
        summary: "The device type's metrics (export metric)",
        params: z.object({ deviceId: idParam }),
        response: { 200: z.array(exportMetricSchema) },
      },
      preHandler: exporters,
    },
    async (request) => exports.metrics(caller(request), request.params.deviceId),
  );

  app.get(
    '/api/dataExport/jobs',
    {
      schema: {
        tags,
        summary: "The caller's latest export jobs",
        querystring: exportJobsQuerySchema,
        response: { 200: exportJobsResponseSchema },
      },
      preHandler: exporters,
    },
    async (request) => exports.jobs(caller(request), request.query.limit),
  );

  app.post(
    '/api/dataExport/batchDataExport',
    {
      schema: {
        tags,
        summary: "Start an export job (the §5 rules are checked here with the page's messages)",
        description:
          'Dates are calendar dates; the start may not be earlier than one year ago, the end not in the future.',
        body: requestSchema,
        response: {
          200: z.object({ success: z.literal(true), message: z.string(), jobId: z.number().int() }),
        },
      },
      preHandler: exporters,
    },
    async (request) => exports.create(caller(request), request.body, meta(request)),
  );

  app.get(
    '/api/dataExport/jobs/:id/download',
    {
      schema: {
        tags,
        summary: 'Download a completed export (ZIP); audited',
        params: z.object({ id: idParam }),
      },
      preHandler: exporters,
    },
    async (request, reply) => {
      const file = await exports.download(caller(request), request.params.id, meta(request));
      return (
        reply
          .header('Content-Type', 'application/zip')
          .header('Content-Length', String(file.size))
          // The name is ASCII letters, digits, '-', '_', '.' only (safeFileNamePart).
          .header('Content-Disposition', `attachment; filename="${file.fileName}"`)
          .header('Cache-Control', 'no-store')
          .header('X-Content-Type-Options', 'nosniff')
          .send(file.stream)
      );
    },
  );

  app.delete(
    '/api/dataExport/jobs/:id',
    {
      schema: {
        tags,
        summary: 'Delete a completed or failed export, or cancel a pending or processing one',
        params: z.object({ id: idParam }),
        response: { 200: z.object({ success: z.literal(true), message: z.string() }) },
      },
      preHandler: exporters,
    },
    async (request) => exports.remove(caller(request), request.params.id, meta(request)),
  );
};
