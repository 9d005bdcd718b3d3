import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  metricCatalog,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
} from '../../db/schema';

/** Tracker metrics the export tests use, as in the product's metric catalog. */
export const TRACKER_METRICS = [
  {
    metricKey: 'steps',
    metricName: 'Steps',
    units: 'steps',
    category: 'activity',
    description: 'Daily step count',
  },
  {
    metricKey: 'heart_rate',
    metricName: 'Heart Rate',
    units: 'bpm',
    category: 'heart',
    description: 'Heart rate samples',
  },
  {
    metricKey: 'resting_heart_rate',
    metricName: 'Resting Heart Rate',
    units: 'bpm',
    category: 'heart',
    description: 'Daily resting heart rate',
  },
  {
    metricKey: 'calories',
    metricName: 'Calories Burned',
    units: 'kcal',
    category: 'activity',
    description: 'Calories burned per day',
  },
  {
    metricKey: 'spo2',
    metricName: 'SpO2',
    units: '%',
    category: 'health',
    description: 'Oxygen saturation',
  },
];

/**
 * The Fitbit tracker in the global catalog (kept when it is already there, e.g. from the
 * catalog seed), its tracker metrics, and the team's supported-device row: the export device.
 */
export async function createExportDevice(
  db: Db,
  teamId: number,
  options: { notStored?: readonly string[] } = {},
): Promise<{ deviceId: number }> {
  const deviceName = 'Fitbit Smartwatches & Trackers';
  await db
    .insert(globalDeviceCatalog)
    .values({
      manufacturer: 'Fitbit',
      deviceType: 'TRACKER',
      deviceName,
      context: 'tracker',
      description: 'Fitbit trackers',
    })
    .onConflictDoNothing();
  const [catalog] = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .where(eq(globalDeviceCatalog.deviceName, deviceName));
  await db
    .insert(metricCatalog)
    .values(TRACKER_METRICS.map((metric) => ({ deviceType: 'TRACKER', ...metric })))
    .onConflictDoNothing();
  await db
    .insert(teamSupportedDevices)
    .values({ teamId, globalDeviceCatalogId: catalog!.id })
    .onConflictDoNothing();
  const [device] = await db
    .select({ id: teamSupportedDevices.id })
    .from(teamSupportedDevices)
    .where(
      and(
        eq(teamSupportedDevices.teamId, teamId),
        eq(teamSupportedDevices.globalDeviceCatalogId, catalog!.id),
      ),
    );
  // The team stores every tracker metric (both settings layers) unless a test says otherwise.
  const stored = TRACKER_METRICS.filter(
    (metric) => !(options.notStored ?? []).includes(metric.metricKey),
  );
  const layer = stored.map((metric) => ({
    teamId,
    teamSupportedDeviceId: device!.id,
    metricKey: metric.metricKey,
    metricName: metric.metricName,
    isEnabled: true,
    retentionDays: 365,
  }));
  if (layer.length) {
    await db.insert(deviceMetricSettings).values(layer).onConflictDoNothing();
    await db.insert(teamDeviceDataStorageSettings).values(layer).onConflictDoNothing();
  }
  return { deviceId: device!.id };
}
