import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  METRICS_MESSAGES,
  addStorageMetricSchema,
  availableMetricSchema,
  deviceMetricSettingSchema,
  deviceSettingsPutSchema,
  storageDeviceSchema,
  storageMetricSchema,
  storageSelectionSchema,
  storedReadingsSchema,
  teamRetentionSchema,
} from '@trialpulse/shared';
import { requestMeta } from '../../lib/request-meta';
import type { AuthContext } from '../auth/session-context';
import type { MetricsService } from './metrics.service';

type Options = { metrics: MetricsService };

const positiveId = (message: string) => z.coerce.number({ error: message }).int().positive(message);
const teamId = positiveId(METRICS_MESSAGES.teamNotFound);
const deviceId = positiveId(METRICS_MESSAGES.deviceNotFound);
const deviceType = z.string().trim().min(1).max(100);
const metricKey = z.string().trim().min(1).max(100);
const messageSchema = z.object({ message: z.string() });

const SYS_ADMIN_NOTE = 'Sys_Admin only (403 otherwise); an unknown team or device answers 404.';
const ADMINS_NOTE =
  'Sys_Admin (any team) and Admin (the selected team only; another team answers 404 and nothing changes); 403 for User and Viewer.';

/**
 * Device metrics manager and team data retention calls of the device-data spec §7, under
 * /api with the spec's paths and fields (decision 0030).
 */
export const metricsRoutes: FastifyPluginAsyncZod<Options> = async (app, options) => {
  const { metrics } = options;
  const sysAdmin = app.requireStaff({ action: 'metrics.manage' });
  const admins = app.requireStaff({ action: 'retention.manage' });
  const caller = (request: { auth: AuthContext | null }) => request.auth!;
  const tags = ['device metrics'];

  app.get(
    '/api/deviceSettings/enhanced/deviceSettings/:teamId/:deviceId',
    {
      schema: {
        tags,
        summary: "A team device's metric settings (deviceId: the team supported device id)",
        description: SYS_ADMIN_NOTE,
        params: z.object({ teamId, deviceId }),
        response: { 200: z.array(deviceMetricSettingSchema) },
      },
      preHandler: sysAdmin,
    },
    async (request) =>
      metrics.deviceSettings(caller(request), request.params.teamId, request.params.deviceId),
  );

  app.get(
    '/api/deviceSettings/enhanced/availableMetrics/:teamId/:deviceId/:deviceType',
    {
      schema: {
        tags,
        summary: "The catalog metrics of the device's type (`all`: every type)",
        description: `${SYS_ADMIN_NOTE} A device type other than the device's answers 404.`,
        params: z.object({ teamId, deviceId, deviceType }),
        response: { 200: z.array(availableMetricSchema) },
      },
      preHandler: sysAdmin,
    },
    async (request) =>
      metrics.availableMetrics(
        caller(request),
        request.params.teamId,
        request.params.deviceId,
        request.params.deviceType,
      ),
  );

  app.put(
    '/api/deviceSettings/:teamId/:deviceId',
    {
      schema: {
        tags,
        summary: "Replaces a team device's whole metric settings list",
        description: `${SYS_ADMIN_NOTE} Every row is checked first (metric name required, retention days ≥ 1, metric in the catalog for the device's type and available, each metric once); one bad row: 400 listing every problem and nothing saved.`,
        params: z.object({ teamId, deviceId }),
        body: deviceSettingsPutSchema,
        response: {
          200: z.object({ message: z.string(), settings: z.array(deviceMetricSettingSchema) }),
        },
      },
      preHandler: sysAdmin,
    },
    async (request) =>
      metrics.replaceDeviceSettings(
        caller(request),
        request.params.teamId,
        request.params.deviceId,
        request.body,
        requestMeta(request),
      ),
  );

  app.get(
    '/api/dataStorageService/team/:teamId/devices',
    {
      schema: {
        tags,
        summary: "The team's supported devices",
        description: ADMINS_NOTE,
        params: z.object({ teamId }),
        response: { 200: z.array(storageDeviceSchema) },
      },
      preHandler: admins,
    },
    async (request) => metrics.storageDevices(caller(request), request.params.teamId),
  );

  app.get(
    '/api/dataStorageService/team/:teamId/retention',
    {
      schema: {
        tags,
        summary: "The team's retention period (null: not set)",
        description: ADMINS_NOTE,
        params: z.object({ teamId }),
        response: { 200: teamRetentionSchema },
      },
      preHandler: admins,
    },
    async (request) => metrics.retention(caller(request), request.params.teamId),
  );

  app.get(
    '/api/dataStorageService/metrics/:deviceType',
    {
      schema: {
        tags,
        summary: 'The available catalog metrics of a device type',
        description:
          'Sys_Admin and Admin. Global product data, the same for every team; a device type the catalog does not know answers 404.',
        params: z.object({ deviceType }),
        response: { 200: z.array(storageMetricSchema) },
      },
      preHandler: admins,
    },
    async (request) => metrics.storageMetrics(request.params.deviceType),
  );

  app.get(
    '/api/dataStorageService/team/:teamId/device/:deviceType/selections',
    {
      schema: {
        tags,
        summary:
          'Metrics the system administrator enabled for the team devices of this type, with the team’s choice',
        description: `${ADMINS_NOTE} 404 when the team has no device of this type.`,
        params: z.object({ teamId, deviceType }),
        response: { 200: z.array(storageSelectionSchema) },
      },
      preHandler: admins,
    },
    async (request) =>
      metrics.selections(caller(request), request.params.teamId, request.params.deviceType),
  );

  app.post(
    '/api/dataStorageService/team/:teamId/device/:deviceType/metric',
    {
      schema: {
        tags,
        summary: 'The team keeps a metric (only one the system administrator enabled)',
        description: `${ADMINS_NOTE} 400 when the system administrator has not enabled the metric for the team's devices of this type.`,
        params: z.object({ teamId, deviceType }),
        body: addStorageMetricSchema,
        response: { 200: messageSchema },
      },
      preHandler: admins,
    },
    async (request) =>
      metrics.addSelection(
        caller(request),
        request.params.teamId,
        request.params.deviceType,
        request.body,
        requestMeta(request),
      ),
  );

  app.delete(
    '/api/dataStorageService/team/:teamId/device/:deviceType/metric/:metricKey',
    {
      schema: {
        tags,
        summary: 'The team stops keeping a metric',
        description: `${ADMINS_NOTE} 404 when the team does not keep it.`,
        params: z.object({ teamId, deviceType, metricKey }),
        response: { 200: messageSchema },
      },
      preHandler: admins,
    },
    async (request) =>
      metrics.removeSelection(
        caller(request),
        request.params.teamId,
        request.params.deviceType,
        request.params.metricKey,
        requestMeta(request),
      ),
  );

  app.get(
    '/api/dataStorageService/team/:teamId/device/:deviceType/metric/:metricKey/storedReadings',
    {
      schema: {
        tags,
        summary:
          'Beyond the spec: stored readings of a metric that the next purge deletes once it is removed',
        description: ADMINS_NOTE,
        params: z.object({ teamId, deviceType, metricKey }),
        response: { 200: storedReadingsSchema },
      },
      preHandler: admins,
    },
    async (request) =>
      metrics.storedReadings(
        caller(request),
        request.params.teamId,
        request.params.deviceType,
        request.params.metricKey,
      ),
  );
};
