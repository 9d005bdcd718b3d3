import { z } from 'zod';
import { LIMITS } from '../limits';

/**
 * Device Metrics Manager (Sys_Admin) and Team Data Retention (Sys_Admin, Admin): the
 * device-data spec §2–§9 texts, and the payloads of §7 "Device metrics manager" and "Team
 * data retention". Server and web use the same messages.
 */
export const METRICS_MESSAGES = {
  // §5 device metric row and bulk actions
  metricNameRequired: 'Metric name is required',
  retentionMin: 'Retention days must be at least 1',
  fixValidation: 'Please fix validation errors before saving',
  selectToModify: 'Please select at least one setting to modify',
  selectToDelete: 'Please select at least one setting to delete',
  // §2 device metrics manager
  noDevicesForTeam: 'No devices found for this team',
  loadingSettings: 'Loading settings...',
  noMetricsForDevice: 'No metrics found for this device.',
  noMetricsFound: 'No metrics found',
  deleteSettingTitle: 'Delete Metric Setting',
  deleteSettingsTitle: 'Delete Multiple Metric Settings',
  unknownError: 'Unknown error',
  // §2 retention page
  noRetention: 'No retention period set yet.',
  noSupportedDevices: 'No supported devices found for your team.',
  loadingMetrics: 'Loading metrics...',
  noMetricsForType: 'No metrics available for this device type.',
  noMetricsAdded: 'No metrics have been added by your administrator for this device yet.',
  changesSaved: 'Changes saved',
  saving: 'Saving...',
  // Server answers the spec does not word (docs/decisions/0030).
  teamNotFound: 'Team not found.',
  deviceNotFound: 'Device not found.',
  unknownDeviceType: 'Unknown device type.',
  metricNotInCatalog: 'This metric is not available for this device.',
  duplicateMetric: 'Each metric can be listed only once.',
  retentionMax: `Retention days must be at most ${LIMITS.maxRetentionDays}`,
  metricNotEnabled: 'This metric has not been enabled for your team by a system administrator.',
  metricNotSelected: 'This metric is not selected for your team.',
  settingsSaved: 'Device settings saved.',
  selectionAdded: 'Metric added.',
  selectionRemoved: 'Metric removed.',
} as const;

/** §8 "Failed to …: {reason}" banners (device metrics manager and retention page). */
export const metricsErrorText = {
  fetchTeams: (reason: string) => `Failed to fetch teams: ${reason}`,
  fetchDevices: (reason: string) => `Failed to fetch devices: ${reason}`,
  fetchDeviceSettings: (reason: string) => `Failed to fetch device settings: ${reason}`,
  fetchAvailableMetrics: (reason: string) => `Failed to fetch available metrics: ${reason}`,
  saveSelections: (reason: string) => `Failed to save selections: ${reason}`,
  saveChanges: (reason: string) => `Failed to save changes: ${reason}`,
  setStatus: (action: 'enable' | 'disable', reason: string) =>
    `Failed to ${action} settings: ${reason}`,
  deleteSetting: (reason: string) => `Failed to delete setting: ${reason}`,
  deleteSettings: (reason: string) => `Failed to delete settings: ${reason}`,
  // Retention page (§8 gives the prefixes; the reason follows).
  fetchSupportedDevices: (reason: string) => `Failed to fetch supported devices: ${reason}`,
  fetchRetention: (reason: string) => `Failed to fetch retention period: ${reason}`,
  fetchCurrentSelections: (reason: string) => `Failed to fetch current selections: ${reason}`,
} as const;

/** 'Retention: N days (Y years)', years = days / 365 to one decimal (§2, §9). */
export function formatRetention(days: number | null | undefined): string {
  if (days === null || days === undefined) return METRICS_MESSAGES.noRetention;
  return `Retention: ${days} days (${(days / 365).toFixed(1)} years)`;
}

const id = z.number().int();

/** GET /sysAdminTeamsData rows as the manager's team dropdown uses them. */
export const teamOptionRowSchema = z.object({ team_id: id, team_name: z.string() });

/** Device metric setting (§3). `isNew` is client-only and never sent. */
export const deviceMetricSettingSchema = z.object({
  id,
  metric_key: z.string(),
  metric_name: z.string(),
  metric_units: z.string().nullable(),
  is_enabled: z.boolean(),
  retention_days: id,
});
export type DeviceMetricSetting = z.infer<typeof deviceMetricSettingSchema>;

/** Available metric (§3). */
export const availableMetricSchema = z.object({
  id,
  metric_key: z.string(),
  metric_name: z.string(),
  units: z.string().nullable(),
  device_type: z.string(),
  category: z.string().nullable(),
  description: z.string().nullable(),
  available: z.boolean(),
  default_retention_days: id,
});
export type AvailableMetric = z.infer<typeof availableMetricSchema>;

/** Retention days arrive as numbers or numeric text; parsed as integers (§5). */
const retentionDaysInput = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() !== '' ? Number(value.trim()) : value),
  z
    .number({ error: METRICS_MESSAGES.retentionMin })
    .int(METRICS_MESSAGES.retentionMin)
    .min(LIMITS.minRetentionDays, METRICS_MESSAGES.retentionMin)
    .max(LIMITS.maxRetentionDays, METRICS_MESSAGES.retentionMax),
);

/** One row of PUT /deviceSettings/{teamId}/{deviceId} (§7); missing retention: the metric's default. */
export const deviceMetricSettingInputSchema = z.object({
  metric_key: z
    .string({ error: METRICS_MESSAGES.metricNameRequired })
    .trim()
    .min(1, METRICS_MESSAGES.metricNameRequired)
    .max(100),
  metric_name: z
    .string({ error: METRICS_MESSAGES.metricNameRequired })
    .trim()
    .min(1, METRICS_MESSAGES.metricNameRequired)
    .max(200),
  metric_units: z.string().trim().max(50).nullable().optional(),
  is_enabled: z.boolean().default(true),
  retention_days: retentionDaysInput.optional(),
});
export type DeviceMetricSettingInput = z.input<typeof deviceMetricSettingInputSchema>;

export const deviceSettingsPutSchema = z.object({
  settings: z.array(deviceMetricSettingInputSchema).max(500),
});
export type DeviceSettingsPut = z.input<typeof deviceSettingsPutSchema>;

/** GET /dataStorageService/team/{teamId}/devices (§7). */
export const storageDeviceSchema = z.object({
  team_supported_device_id: id,
  device_name: z.string(),
  device_type: z.string().nullable(),
});
export type StorageDevice = z.infer<typeof storageDeviceSchema>;

export const teamRetentionSchema = z.object({ retention_days: id.nullable() });

/** GET /dataStorageService/metrics/{deviceType} (§7). */
export const storageMetricSchema = z.object({
  id,
  metric_key: z.string(),
  metric_name: z.string(),
  units: z.string().nullable(),
  category: z.string().nullable(),
  description: z.string().nullable(),
});
export type StorageMetric = z.infer<typeof storageMetricSchema>;

/**
 * GET …/selections (§7): one row per metric the system administrator enabled for the
 * team's devices of that type; `is_enabled` says whether the team keeps it.
 */
export const storageSelectionSchema = z.object({ metric_key: z.string(), is_enabled: z.boolean() });
export type StorageSelection = z.infer<typeof storageSelectionSchema>;

/** POST …/metric (§7). Name and units are taken from the catalog; the key decides. */
export const addStorageMetricSchema = z.object({
  metric_key: z
    .string({ error: METRICS_MESSAGES.metricNameRequired })
    .trim()
    .min(1, METRICS_MESSAGES.metricNameRequired)
    .max(100),
  metric_name: z.string().max(200).nullable().optional(),
  units: z.string().max(50).nullable().optional(),
  device_metric_id: z.number().int().positive().nullable().optional(),
});
export type AddStorageMetric = z.input<typeof addStorageMetricSchema>;

/** Beyond the spec: how many stored readings the next purge deletes when a metric is removed. */
export const storedReadingsSchema = z.object({
  metric_key: z.string(),
  stored_readings: z.number().int(),
});
