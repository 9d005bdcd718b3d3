import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
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

/** An export worker process (test-export-worker.ts) and what the test waits on. */
export type ExportWorkerProcess = {
  child: ChildProcess;
  /** Resolves once the worker holds after its first page (rejects if it exits before). */
  held: Promise<void>;
  /** Resolves with everything the worker printed once it exited. */
  exited: Promise<string>;
  /** The run's outcome: the worker's last line, once it exited. */
  outcome(): Promise<{ status: string; [key: string]: unknown }>;
  /** Lets a held worker go on. */
  release(): void;
};

/**
 * Starts test-export-worker.ts on the export job `jobId` of the PostgreSQL database at
 * `databaseUrl`, held after its first page when `hold`; it joins `children`, which the
 * test kills at its end.
 */
export function startExportWorkerProcess(options: {
  jobId: number;
  databaseUrl: string;
  dataDir: string;
  hold: boolean;
  children: ChildProcess[];
  pageSize?: number;
  resourcesPerFile?: number;
}): ExportWorkerProcess {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      path.join(import.meta.dirname, 'test-export-worker.ts'),
      String(options.jobId),
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: options.databaseUrl,
        EXPORT_TEST_DATA_DIR: options.dataDir,
        EXPORT_TEST_HOLD: options.hold ? '1' : '0',
        EXPORT_TEST_PAGE_SIZE: options.pageSize?.toString() ?? '',
        EXPORT_TEST_RESOURCES_PER_FILE: options.resourcesPerFile?.toString() ?? '',
      },
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  options.children.push(child);
  let output = '';
  const exited = new Promise<string>((resolve) => child.once('exit', () => resolve(output)));
  const held = new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('held\n')) resolve();
    });
    void exited.then(() => reject(new Error(`worker exited before it held: ${output}`)));
  });
  held.catch(() => undefined);
  return {
    child,
    held,
    exited,
    outcome: async () => JSON.parse((await exited).trim().split('\n').at(-1)!),
    release: () => child.stdin!.write('go\n'),
  };
}
