import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  doublePrecision,
  foreignKey,
  index,
  integer,
  pgTable,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import { createdAt, identityId, updatedAt } from './columns';
import { teamSupportedDevices } from './devices';
import { participants } from './participants';
import { teams } from './teams';

/**
 * Two layers decide what is stored (device-data spec §2, §6):
 * 1. `device_metric_settings` — the system administrator enables metrics per team device
 *    (Device Metrics Manager, PUT /deviceSettings/{teamId}/{deviceId} replaces the list).
 * 2. `team_device_data_storage_settings` — the team's administrators choose among those
 *    (Team Data Retention page).
 * Sync stores a metric only when both layers enable it; the retention job deletes data
 * older than the setting's retention_days (else the team's retention_days).
 */

/** Metrics a device type can provide (global, not tenant-owned). */
export const metricCatalog = pgTable(
  'metric_catalog',
  {
    id: identityId(),
    deviceType: text('device_type').notNull(),
    metricKey: text('metric_key').notNull(),
    metricName: text('metric_name').notNull(),
    units: text('units'),
    category: text('category'),
    description: text('description'),
    available: boolean('available').notNull().default(true),
    defaultRetentionDays: integer('default_retention_days').notNull().default(30),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('metric_catalog_device_type_metric_key_unique').on(t.deviceType, t.metricKey),
    check('metric_catalog_default_retention_days_min', sql`${t.defaultRetentionDays} >= 1`),
  ],
);

/** Layer 1: metrics the system administrator enabled for one team device. */
export const deviceMetricSettings = pgTable(
  'device_metric_settings',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    teamSupportedDeviceId: integer('team_supported_device_id').notNull(),
    metricCatalogId: integer('metric_catalog_id').references(() => metricCatalog.id, {
      onDelete: 'set null',
    }),
    metricKey: text('metric_key').notNull(),
    metricName: text('metric_name').notNull(),
    metricUnits: text('metric_units'),
    isEnabled: boolean('is_enabled').notNull().default(true),
    retentionDays: integer('retention_days').notNull().default(30),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('device_metric_settings_device_metric_unique').on(t.teamSupportedDeviceId, t.metricKey),
    index('device_metric_settings_team_id_idx').on(t.teamId),
    index('device_metric_settings_device_team_idx').on(t.teamSupportedDeviceId, t.teamId),
    index('device_metric_settings_metric_catalog_id_idx').on(t.metricCatalogId),
    foreignKey({
      name: 'device_metric_settings_device_fk',
      columns: [t.teamSupportedDeviceId, t.teamId],
      foreignColumns: [teamSupportedDevices.id, teamSupportedDevices.teamId],
    }).onDelete('cascade'),
    check('device_metric_settings_retention_days_min', sql`${t.retentionDays} >= 1`),
    check('device_metric_settings_metric_name_not_blank', sql`btrim(${t.metricName}) <> ''`),
  ],
);

/** Layer 2: the team's own selection among the enabled metrics, per team device. */
export const teamDeviceDataStorageSettings = pgTable(
  'team_device_data_storage_settings',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    teamSupportedDeviceId: integer('team_supported_device_id').notNull(),
    metricCatalogId: integer('metric_catalog_id').references(() => metricCatalog.id, {
      onDelete: 'set null',
    }),
    metricKey: text('metric_key').notNull(),
    metricName: text('metric_name').notNull(),
    units: text('units'),
    isEnabled: boolean('is_enabled').notNull().default(true),
    retentionDays: integer('retention_days').notNull().default(30),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('team_device_data_storage_settings_device_metric_unique').on(
      t.teamSupportedDeviceId,
      t.metricKey,
    ),
    index('team_device_data_storage_settings_team_id_idx').on(t.teamId),
    index('team_device_data_storage_settings_device_team_idx').on(
      t.teamSupportedDeviceId,
      t.teamId,
    ),
    index('team_device_data_storage_settings_metric_catalog_id_idx').on(t.metricCatalogId),
    foreignKey({
      name: 'team_device_data_storage_settings_device_fk',
      columns: [t.teamSupportedDeviceId, t.teamId],
      foreignColumns: [teamSupportedDevices.id, teamSupportedDevices.teamId],
    }).onDelete('cascade'),
    check('team_device_data_storage_settings_retention_days_min', sql`${t.retentionDays} >= 1`),
  ],
);

/** Fitbit weekly summary kept in the local database (device-data spec §3). */
export const fitbitWeeklySummaries = pgTable(
  'fitbit_weekly_summaries',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    participantId: integer('participant_id').notNull(),
    avrgRestingHeartRateLast7days: doublePrecision('avrg_resting_heart_rate_last_7days'),
    avrgRestingHeartRatePrev7days: doublePrecision('avrg_resting_heart_rate_prev_7days'),
    avrgSleepDurationLast7days: doublePrecision('avrg_sleep_duration_last_7days'),
    avrgSleepDurationPrev7days: doublePrecision('avrg_sleep_duration_prev_7days'),
    totalStepsLast7days: doublePrecision('total_steps_last_7days'),
    totalStepsPrev7days: doublePrecision('total_steps_prev_7days'),
    totalDistanceLast7days: doublePrecision('total_distance_last_7days'),
    totalDistancePrev7days: doublePrecision('total_distance_prev_7days'),
    totalFloorsLast7days: doublePrecision('total_floors_last_7days'),
    totalFloorsPrev7days: doublePrecision('total_floors_prev_7days'),
    avrgWeightLast7days: doublePrecision('avrg_weight_last_7days'),
    avrgWeightPrev7days: doublePrecision('avrg_weight_prev_7days'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('fitbit_weekly_summaries_participant_unique').on(t.participantId, t.teamId),
    index('fitbit_weekly_summaries_team_id_idx').on(t.teamId),
    foreignKey({
      name: 'fitbit_weekly_summaries_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
  ],
);
