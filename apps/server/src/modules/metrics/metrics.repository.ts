import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  metricCatalog,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
  teams,
  type DeviceBrand,
} from '../../db/schema';

export type SettingValues = {
  metricCatalogId: number | null;
  metricKey: string;
  metricName: string;
  metricUnits: string | null;
  isEnabled: boolean;
  retentionDays: number;
};

const settingColumns = {
  id: deviceMetricSettings.id,
  metric_key: deviceMetricSettings.metricKey,
  metric_name: deviceMetricSettings.metricName,
  metric_units: deviceMetricSettings.metricUnits,
  is_enabled: deviceMetricSettings.isEnabled,
  retention_days: deviceMetricSettings.retentionDays,
};

const catalogColumns = {
  id: metricCatalog.id,
  metric_key: metricCatalog.metricKey,
  metric_name: metricCatalog.metricName,
  units: metricCatalog.units,
  device_type: metricCatalog.deviceType,
  category: metricCatalog.category,
  description: metricCatalog.description,
  available: metricCatalog.available,
  default_retention_days: metricCatalog.defaultRetentionDays,
};

/** The only code of the metrics module that touches tables. */
export function createMetricsRepository(db: Db) {
  /** Active devices of a team with the given device type. */
  const devicesOfType = (from: DbOrTx, teamId: number, deviceType: string) =>
    from
      .select({ id: teamSupportedDevices.id })
      .from(teamSupportedDevices)
      .innerJoin(
        globalDeviceCatalog,
        eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
      )
      .where(
        and(
          eq(teamSupportedDevices.teamId, teamId),
          eq(teamSupportedDevices.isActive, true),
          eq(globalDeviceCatalog.deviceType, deviceType),
        ),
      )
      .orderBy(asc(teamSupportedDevices.id));

  return {
    /**
     * Metrics the team stores for devices of the brand of its supported device `deviceId`
     * (a team_supported_devices id, as the export form has it): enabled in both layers on an
     * active team device of that brand (what the sync collects; one account delivers all of
     * a brand's devices). Read-only.
     */
    async storedMetricKeys(teamId: number, deviceId: number): Promise<Set<string>> {
      const result = await db.execute<{ metric_key: string }>(sql`
        select distinct t.metric_key
          from team_supported_devices chosen
          join global_device_catalog own on own.id = chosen.global_device_catalog_id
          join team_supported_devices tsd on tsd.team_id = ${teamId} and tsd.is_active
          join global_device_catalog g
            on g.id = tsd.global_device_catalog_id and g.manufacturer = own.manufacturer
          join device_metric_settings d
            on d.team_supported_device_id = tsd.id and d.team_id = ${teamId} and d.is_enabled
          join team_device_data_storage_settings t
            on t.team_supported_device_id = tsd.id and t.team_id = ${teamId}
           and t.metric_key = d.metric_key and t.is_enabled
         where chosen.id = ${deviceId} and chosen.team_id = ${teamId}`);
      return new Set(result.rows.map((row) => row.metric_key));
    },

    transaction: db.transaction.bind(db),

    async findTeam(teamId: number) {
      const [row] = await db
        .select({ id: teams.id, retentionDays: teams.retentionDays })
        .from(teams)
        .where(eq(teams.id, teamId));
      return row;
    },

    /** A team's supported device (active or not) with its catalog type; `lock` before a change. */
    async findTeamDevice(
      teamId: number,
      deviceId: number,
      options: { tx?: DbOrTx; lock?: boolean } = {},
    ) {
      const from = options.tx ?? db;
      const query = from
        .select({
          id: teamSupportedDevices.id,
          teamId: teamSupportedDevices.teamId,
          deviceType: globalDeviceCatalog.deviceType,
          deviceName: globalDeviceCatalog.deviceName,
        })
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(and(eq(teamSupportedDevices.id, deviceId), eq(teamSupportedDevices.teamId, teamId)));
      const rows = await (options.lock ? query.for('update', { of: teamSupportedDevices }) : query);
      return rows[0];
    },

    async deviceSettings(teamId: number, deviceId: number, tx: DbOrTx = db) {
      return tx
        .select(settingColumns)
        .from(deviceMetricSettings)
        .where(
          and(
            eq(deviceMetricSettings.teamId, teamId),
            eq(deviceMetricSettings.teamSupportedDeviceId, deviceId),
          ),
        )
        .orderBy(asc(deviceMetricSettings.id));
    },

    /** Catalog metrics of one device type, or of every type (`null`), by type then name. */
    async catalog(
      deviceType: string | null,
      options: { availableOnly?: boolean; tx?: DbOrTx } = {},
    ) {
      return (options.tx ?? db)
        .select(catalogColumns)
        .from(metricCatalog)
        .where(
          and(
            deviceType === null ? undefined : eq(metricCatalog.deviceType, deviceType),
            options.availableOnly ? eq(metricCatalog.available, true) : undefined,
          ),
        )
        .orderBy(
          asc(metricCatalog.deviceType),
          asc(metricCatalog.metricName),
          asc(metricCatalog.id),
        );
    },

    /**
     * Makes `rows` exactly the device's settings: rows whose key is not listed are deleted,
     * listed ones inserted or updated (ids of kept keys stay the same).
     */
    async replaceDeviceSettings(
      tx: DbOrTx,
      teamId: number,
      deviceId: number,
      rows: SettingValues[],
    ) {
      const keys = rows.map((row) => row.metricKey);
      await tx
        .delete(deviceMetricSettings)
        .where(
          and(
            eq(deviceMetricSettings.teamId, teamId),
            eq(deviceMetricSettings.teamSupportedDeviceId, deviceId),
            keys.length
              ? sql`${deviceMetricSettings.metricKey} <> ALL(${sql.param(keys)}::text[])`
              : undefined,
          ),
        );
      if (rows.length === 0) return;
      await tx
        .insert(deviceMetricSettings)
        .values(rows.map((row) => ({ ...row, teamId, teamSupportedDeviceId: deviceId })))
        .onConflictDoUpdate({
          target: [deviceMetricSettings.teamSupportedDeviceId, deviceMetricSettings.metricKey],
          set: {
            metricCatalogId: sql`excluded.metric_catalog_id`,
            metricName: sql`excluded.metric_name`,
            metricUnits: sql`excluded.metric_units`,
            isEnabled: sql`excluded.is_enabled`,
            retentionDays: sql`excluded.retention_days`,
            updatedAt: sql`now()`,
          },
        });
    },

    /** Active supported devices of a team (retention page dropdown). */
    async storageDevices(teamId: number) {
      return db
        .select({
          team_supported_device_id: teamSupportedDevices.id,
          device_name: globalDeviceCatalog.deviceName,
          device_type: globalDeviceCatalog.deviceType,
        })
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(eq(teamSupportedDevices.teamId, teamId), eq(teamSupportedDevices.isActive, true)),
        )
        .orderBy(asc(globalDeviceCatalog.deviceName), asc(teamSupportedDevices.id));
    },

    devicesOfType: (teamId: number, deviceType: string, tx: DbOrTx = db) =>
      devicesOfType(tx, teamId, deviceType),

    /** Enabled system-administrator settings (layer 1) of the given devices. */
    async enabledSettings(teamId: number, deviceIds: number[], tx: DbOrTx = db) {
      if (deviceIds.length === 0) return [];
      return tx
        .select({
          deviceId: deviceMetricSettings.teamSupportedDeviceId,
          metricKey: deviceMetricSettings.metricKey,
          metricName: deviceMetricSettings.metricName,
          metricUnits: deviceMetricSettings.metricUnits,
        })
        .from(deviceMetricSettings)
        .where(
          and(
            eq(deviceMetricSettings.teamId, teamId),
            inArray(deviceMetricSettings.teamSupportedDeviceId, deviceIds),
            eq(deviceMetricSettings.isEnabled, true),
          ),
        )
        .orderBy(asc(deviceMetricSettings.metricName), asc(deviceMetricSettings.id));
    },

    /** The team's own selections (layer 2) on the given devices. */
    async teamSelections(teamId: number, deviceIds: number[], tx: DbOrTx = db, metricKey?: string) {
      if (deviceIds.length === 0) return [];
      return tx
        .select({
          id: teamDeviceDataStorageSettings.id,
          deviceId: teamDeviceDataStorageSettings.teamSupportedDeviceId,
          metricKey: teamDeviceDataStorageSettings.metricKey,
          metricName: teamDeviceDataStorageSettings.metricName,
          units: teamDeviceDataStorageSettings.units,
          isEnabled: teamDeviceDataStorageSettings.isEnabled,
          retentionDays: teamDeviceDataStorageSettings.retentionDays,
        })
        .from(teamDeviceDataStorageSettings)
        .where(
          and(
            eq(teamDeviceDataStorageSettings.teamId, teamId),
            inArray(teamDeviceDataStorageSettings.teamSupportedDeviceId, deviceIds),
            metricKey === undefined
              ? undefined
              : eq(teamDeviceDataStorageSettings.metricKey, metricKey),
          ),
        )
        .orderBy(asc(teamDeviceDataStorageSettings.id));
    },

    async upsertSelection(
      tx: DbOrTx,
      values: {
        teamId: number;
        deviceId: number;
        metricCatalogId: number | null;
        metricKey: string;
        metricName: string;
        units: string | null;
        retentionDays: number;
      },
    ) {
      await tx
        .insert(teamDeviceDataStorageSettings)
        .values({
          teamId: values.teamId,
          teamSupportedDeviceId: values.deviceId,
          metricCatalogId: values.metricCatalogId,
          metricKey: values.metricKey,
          metricName: values.metricName,
          units: values.units,
          isEnabled: true,
          retentionDays: values.retentionDays,
        })
        .onConflictDoUpdate({
          target: [
            teamDeviceDataStorageSettings.teamSupportedDeviceId,
            teamDeviceDataStorageSettings.metricKey,
          ],
          set: {
            metricCatalogId: sql`excluded.metric_catalog_id`,
            metricName: sql`excluded.metric_name`,
            units: sql`excluded.units`,
            isEnabled: true,
            updatedAt: sql`now()`,
          },
        });
    },

    async deleteSelections(tx: DbOrTx, teamId: number, deviceIds: number[], metricKey: string) {
      if (deviceIds.length === 0) return;
      await tx
        .delete(teamDeviceDataStorageSettings)
        .where(
          and(
            eq(teamDeviceDataStorageSettings.teamId, teamId),
            inArray(teamDeviceDataStorageSettings.teamSupportedDeviceId, deviceIds),
            eq(teamDeviceDataStorageSettings.metricKey, metricKey),
          ),
        );
    },

    /**
     * The brands of the team's devices of `deviceType`: whose stored readings of a metric a
     * purge would delete (the readings service counts them).
     */
    async brandsOfDeviceType(teamId: number, deviceType: string): Promise<DeviceBrand[]> {
      const rows = await db
        .selectDistinct({ brand: globalDeviceCatalog.manufacturer })
        .from(teamSupportedDevices)
        .innerJoin(
          globalDeviceCatalog,
          eq(globalDeviceCatalog.id, teamSupportedDevices.globalDeviceCatalogId),
        )
        .where(
          and(
            eq(teamSupportedDevices.teamId, teamId),
            eq(globalDeviceCatalog.deviceType, deviceType),
          ),
        );
      return rows.map((row) => row.brand);
    },
  };
}

export type MetricsRepository = ReturnType<typeof createMetricsRepository>;
