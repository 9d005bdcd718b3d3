import {
  LIMITS,
  METRICS_MESSAGES,
  METRIC_DEVICE_TYPES,
  type deviceSettingsPutSchema,
  type AddStorageMetric,
  type FieldError,
} from '@trialpulse/shared';
import type { z } from 'zod';
import { recordAudit } from '../../lib/audit';
import { isDbId } from '../../lib/db-ids';
import type { Meta } from '../../lib/request-meta';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';
import type { MetricsAccess } from './metrics.access';
import type { ReadingsService } from '../sync/readings.service';
import type { MetricsRepository, SettingValues } from './metrics.repository';

type SettingsBody = z.output<typeof deviceSettingsPutSchema>;

/** The availableMetrics path segment that asks for every device type (decision 0030). */
export const ALL_DEVICE_TYPES = 'all';

/**
 * Device metric settings (layer 1, Sys_Admin: which metrics a team device may store) and
 * the team's selections among them (layer 2, Sys_Admin and Admin), device-data spec §2–§8.
 * Every change runs in one transaction with its audit row (before and after).
 */
export function createMetricsService(deps: {
  repository: MetricsRepository;
  access: MetricsAccess;
  readings: Pick<ReadingsService, 'countOfTeamMetric'>;
}) {
  const { repository, access, readings } = deps;
  const deviceNotFound = () => AppError.notFound(METRICS_MESSAGES.deviceNotFound);

  async function teamDevice(auth: AuthContext, teamId: number, deviceId: number) {
    await access.team(auth, teamId, 'metrics.manage');
    if (!isDbId(deviceId)) throw deviceNotFound();
    const device = await repository.findTeamDevice(teamId, deviceId);
    if (!device) throw deviceNotFound();
    return device;
  }

  /** The team's active devices of one type; none answers 404 (the page shows an empty list). */
  async function devicesOfType(auth: AuthContext, teamId: number, deviceType: string) {
    await access.team(auth, teamId, 'retention.manage');
    const devices = await repository.devicesOfType(teamId, deviceType);
    if (devices.length === 0) throw deviceNotFound();
    return devices.map((device) => device.id);
  }

  return {
    /**
     * The metrics the team stores for the brand of its supported device `deviceId` (the export
     * form offers the others disabled and the export refuses them; issue 28). Callers check
     * access first.
     */
    storedMetricKeys(teamId: number, deviceId: number): Promise<Set<string>> {
      return repository.storedMetricKeys(teamId, deviceId);
    },

    async deviceSettings(auth: AuthContext, teamId: number, deviceId: number) {
      await teamDevice(auth, teamId, deviceId);
      return repository.deviceSettings(teamId, deviceId);
    },

    /**
     * The catalog metrics for the device's type (`all`: every type, for devices without a
     * type), available or not. A type other than the device's answers 404.
     */
    async availableMetrics(
      auth: AuthContext,
      teamId: number,
      deviceId: number,
      deviceType: string,
    ) {
      const device = await teamDevice(auth, teamId, deviceId);
      if (deviceType === ALL_DEVICE_TYPES) return repository.catalog(null);
      if (!device.deviceType || device.deviceType !== deviceType) throw deviceNotFound();
      return repository.catalog(deviceType);
    },

    /**
     * Replaces the device's whole settings list after checking every row: on any bad row
     * nothing is saved and the answer lists every problem (400). A metric must be in the
     * catalog for the device's type (any type when the device has none) and available.
     */
    async replaceDeviceSettings(
      auth: AuthContext,
      teamId: number,
      deviceId: number,
      body: SettingsBody,
      meta: Meta,
    ) {
      const device = await teamDevice(auth, teamId, deviceId);
      const catalog = await repository.catalog(device.deviceType || null, { availableOnly: true });
      const errors: FieldError[] = [];
      const seen = new Set<string>();
      const rows: SettingValues[] = body.settings.map((setting, index) => {
        const candidates = catalog.filter((metric) => metric.metric_key === setting.metric_key);
        const metric =
          candidates.find((candidate) => candidate.metric_name === setting.metric_name) ??
          candidates[0];
        if (!metric) {
          errors.push({
            field: `settings.${index}.metric_key`,
            message: METRICS_MESSAGES.metricNotInCatalog,
          });
        } else if (seen.has(setting.metric_key)) {
          errors.push({
            field: `settings.${index}.metric_key`,
            message: METRICS_MESSAGES.duplicateMetric,
          });
        }
        seen.add(setting.metric_key);
        return {
          metricCatalogId: metric?.id ?? null,
          metricKey: setting.metric_key,
          metricName: setting.metric_name,
          metricUnits: setting.metric_units ?? metric?.units ?? null,
          isEnabled: setting.is_enabled,
          retentionDays:
            setting.retention_days ?? metric?.default_retention_days ?? LIMITS.defaultRetentionDays,
        };
      });
      if (errors.length > 0) throw AppError.badRequest(errors[0]!.message, errors);

      const settings = await repository.transaction(async (tx) => {
        // Serialises concurrent replacements of one device's list.
        if (!(await repository.findTeamDevice(teamId, deviceId, { tx, lock: true })))
          throw deviceNotFound();
        const before = await repository.deviceSettings(teamId, deviceId, tx);
        await repository.replaceDeviceSettings(tx, teamId, deviceId, rows);
        const after = await repository.deviceSettings(teamId, deviceId, tx);
        await recordAudit(tx, {
          action: 'device_settings.replace',
          entityType: 'team_supported_device',
          entityId: deviceId,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before,
          after,
        });
        return after;
      });
      return { message: METRICS_MESSAGES.settingsSaved, settings };
    },

    async storageDevices(auth: AuthContext, teamId: number) {
      await access.team(auth, teamId, 'retention.manage');
      return repository.storageDevices(teamId);
    },

    async retention(auth: AuthContext, teamId: number) {
      const team = await access.team(auth, teamId, 'retention.manage');
      return { retention_days: team.retentionDays };
    },

    /** Available catalog metrics of a device type (global data; unknown type: 404). */
    async storageMetrics(deviceType: string) {
      // Checked after the route's guard, so a refused caller learns nothing about types.
      if (!(METRIC_DEVICE_TYPES as readonly string[]).includes(deviceType)) {
        throw AppError.notFound(METRICS_MESSAGES.unknownDeviceType);
      }
      const metrics = await repository.catalog(deviceType, { availableOnly: true });
      return metrics.map(({ id, metric_key, metric_name, units, category, description }) => ({
        id,
        metric_key,
        metric_name,
        units,
        category,
        description,
      }));
    },

    /**
     * One row per metric the system administrator enabled on the team's devices of this
     * type; `is_enabled` when the team keeps it on at least one of them.
     */
    async selections(auth: AuthContext, teamId: number, deviceType: string) {
      const deviceIds = await devicesOfType(auth, teamId, deviceType);
      const enabled = await repository.enabledSettings(teamId, deviceIds);
      const chosen = await repository.teamSelections(teamId, deviceIds);
      const keys = [...new Set(enabled.map((setting) => setting.metricKey))];
      return keys.map((key) => ({
        metric_key: key,
        is_enabled: chosen.some((selection) => selection.metricKey === key && selection.isEnabled),
      }));
    },

    /**
     * The team keeps a metric: on each of its devices of this type where the system
     * administrator enabled it (none: 400). Retention: the metric's default, else 30 (§5).
     */
    async addSelection(
      auth: AuthContext,
      teamId: number,
      deviceType: string,
      body: AddStorageMetric,
      meta: Meta,
    ) {
      const deviceIds = await devicesOfType(auth, teamId, deviceType);
      const [metric] = (await repository.catalog(deviceType)).filter(
        (row) => row.metric_key === body.metric_key,
      );
      await repository.transaction(async (tx) => {
        const enabled = (await repository.enabledSettings(teamId, deviceIds, tx)).filter(
          (setting) => setting.metricKey === body.metric_key,
        );
        if (enabled.length === 0) {
          throw AppError.badRequest(METRICS_MESSAGES.metricNotEnabled, [
            { field: 'metric_key', message: METRICS_MESSAGES.metricNotEnabled },
          ]);
        }
        const before = await repository.teamSelections(teamId, deviceIds, tx, body.metric_key);
        for (const setting of enabled) {
          await repository.upsertSelection(tx, {
            teamId,
            deviceId: setting.deviceId,
            metricCatalogId: metric?.id ?? null,
            metricKey: setting.metricKey,
            metricName: metric?.metric_name ?? setting.metricName,
            units: metric?.units ?? setting.metricUnits,
            retentionDays: metric?.default_retention_days ?? LIMITS.defaultRetentionDays,
          });
        }
        const after = await repository.teamSelections(teamId, deviceIds, tx, body.metric_key);
        await recordAudit(tx, {
          action: 'data_storage.metric_add',
          entityType: 'team_device_data_storage_setting',
          entityId: `${deviceType}/${body.metric_key}`,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before,
          after,
        });
      });
      return { message: METRICS_MESSAGES.selectionAdded };
    },

    /** The team stops keeping a metric on its devices of this type (404 when not kept). */
    async removeSelection(
      auth: AuthContext,
      teamId: number,
      deviceType: string,
      metricKey: string,
      meta: Meta,
    ) {
      const deviceIds = await devicesOfType(auth, teamId, deviceType);
      await repository.transaction(async (tx) => {
        const before = await repository.teamSelections(teamId, deviceIds, tx, metricKey);
        if (before.length === 0) throw AppError.notFound(METRICS_MESSAGES.metricNotSelected);
        await repository.deleteSelections(tx, teamId, deviceIds, metricKey);
        await recordAudit(tx, {
          action: 'data_storage.metric_remove',
          entityType: 'team_device_data_storage_setting',
          entityId: `${deviceType}/${metricKey}`,
          actorUserId: auth.userId,
          teamId,
          requestId: meta.requestId,
          before,
          after: [],
        });
      });
      return { message: METRICS_MESSAGES.selectionRemoved };
    },

    /** Beyond the spec: the stored readings a removal would let the next purge delete. */
    async storedReadings(auth: AuthContext, teamId: number, deviceType: string, metricKey: string) {
      await devicesOfType(auth, teamId, deviceType);
      return {
        metric_key: metricKey,
        stored_readings: await readings.countOfTeamMetric(
          teamId,
          metricKey,
          await repository.brandsOfDeviceType(teamId, deviceType),
        ),
      };
    },
  };
}

export type MetricsService = ReturnType<typeof createMetricsService>;
