import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ConfigError, loadConfig, type Config } from './config/env';
import { openDatabase, runMigrations, type Database } from './db/client';
import { DEMO_ACCOUNTS, seedDemoData } from './db/seed/demo-seed';
import { startJobs, type Jobs } from './jobs/boss';
import { jobDefinitions } from './jobs/registry';
import { buildApp } from './app';
import { providerSettingsFromConfig } from './modules/devices/core/provider-settings';
import { createProviderRegistry } from './modules/devices/core/provider-registry';
import { linkDemoDevices } from './modules/devices/demo-links';
import type * as Embedded from '@trialpulse/provider-simulators/embedded';
import {
  SYNC_SCHEDULE_JOB,
  enqueueSync as enqueueSyncJob,
  syncSendQueues,
} from './modules/sync/sync.jobs';
import { createJobQueue, type JobQueue } from './jobs/queue';
import { EXPORT_SWEEP } from './modules/export/export.job';
import type { EnqueueSync } from './modules/sync/webhooks.routes';
import { seedDemoReadings } from './modules/completeness/demo-readings';
import { createServices } from './services';
import { systemClock } from './lib/clock';
import { argon2Hasher } from './lib/passwords';
import type { JobLogger } from './jobs/types';
import { installProcessGuards, type GuardLogger } from './lib/process-guards';

/**
 * Start order: configuration → database → migrations → demo seed → jobs → HTTP.
 * Any failure before listening exits non-zero with the reason.
 */
async function main() {
  // An error nothing handled (e.g. a database restart under a library's floating promise) is
  // logged and the process keeps running (decision 0120); the app's logger once it exists.
  let logger: GuardLogger = console;
  installProcessGuards({
    warn: (obj, msg) => logger.warn(obj, msg),
    error: (obj, msg) => logger.error(obj, msg),
  });

  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78); // EX_CONFIG
    }
    throw error;
  }

  // Demo mode talks to the provider simulators inside this process (DESIGN: runtime).
  // Their one entry point is loaded only then (production never loads simulator code).
  let simulators: Embedded.AllSimulators | undefined;
  let embedded: typeof Embedded | undefined;
  if ((config.SIMULATORS ?? (config.isDemo ? 'embedded' : 'off')) === 'embedded') {
    embedded = await import('@trialpulse/provider-simulators/embedded');
    simulators = await embedded.startAllSimulators({
      basePort: config.SIMULATOR_BASE_PORT,
      host: '127.0.0.1',
    });
    config = { ...config, ...embedded.environmentOf(simulators) };
  }

  const database = await openDatabase(
    config.DATABASE_URL
      ? { kind: 'postgres', connectionString: config.DATABASE_URL }
      : { kind: 'pglite', dataDir: path.join(config.DATA_DIR, 'db') },
  );
  await runMigrations(database);

  // Webhooks and new links enqueue targeted syncs: through this process's pg-boss when it
  // runs the workers, else (PROCESS_ROLE=web, or jobs off) through a send-only queue on the
  // same database, for the worker processes (the requests are served only after both exist).
  const queue: { jobs?: Jobs; sender?: JobQueue } = {};
  const enqueueSync: EnqueueSync = async (data) => {
    if (queue.jobs) return enqueueSyncJob(queue.jobs.boss, data);
    queue.sender ??= createJobQueue(
      database,
      syncSendQueues(config.SYNC_RUN_SECONDS ?? 120),
      app?.log ?? console,
    );
    return enqueueSyncJob(queue.sender, data);
  };
  let app: FastifyInstance | undefined;
  // The app's logger once it exists (services are built before it).
  const serviceLogger: JobLogger = {
    info: (obj, msg) => (app?.log ?? console).info(obj, msg),
    warn: (obj, msg) => (app?.log ?? console).warn(obj, msg),
    error: (obj, msg) => (app?.log ?? console).error(obj, msg),
  };
  // Every service of this process, once, on one clock: the routes and the job workers share them.
  const services = createServices({
    config,
    database,
    clock: systemClock,
    hasher: argon2Hasher,
    providers: providerSettingsFromConfig(config),
    logger: serviceLogger,
    enqueueSync,
  });

  const seeded = config.isDemo ? (await seedDemoData(database.db)).seeded : false;
  if (config.isDemo && simulators && embedded) {
    // The embedded simulators start empty each time: link the demo participants again.
    await linkDemoDevices({
      database,
      links: embedded.DEMO_DEVICE_LINKS,
      legacyParticipantCode: embedded.DEMO_LEGACY_PARTICIPANT,
      consent: embedded.consentAtSimulator,
      providers: createProviderRegistry(providerSettingsFromConfig(config)),
      encryptionKey: config.TOKEN_ENCRYPTION_KEY,
      log: (message) => console.warn(message),
    });
    // Stored readings for the completeness grid before any sync ran (decision 0053).
    await seedDemoReadings({
      db: database.db,
      fitbitTimeZoneOf: embedded.demoFitbitTimeZone,
      fitbitMinuteHeartRateOf: embedded.demoFitbitMinuteHeartRate,
      // The sync's demo backfill (jobs/registry.ts): Omron and Dexcom are not seeded within it.
      syncBackfillDays: config.SYNC_BACKFILL_DAYS ?? 60,
      readings: services.readings,
    });
  }

  if (config.PROCESS_ROLE !== 'worker') {
    app = await buildApp({ config, database, enqueueSync, services });
    logger = app.log;
  }
  const jobs =
    config.JOBS_ENABLED && config.PROCESS_ROLE !== 'web'
      ? await startJobs({
          database,
          logger: app?.log ?? console,
          schedule: true,
          jobs: jobDefinitions(config),
          services,
        })
      : undefined;

  queue.jobs = jobs;
  // Sync every linked connection now (a new one backfills, a known one fetches what is new),
  // in the background: the app is usable at once.
  // Its tick also takes over sync runs of workers that stopped; the export sweep does the same
  // for exports (decision 0121), so a dead worker's work resumes as soon as a worker is back.
  if (jobs) {
    await jobs.boss.send(SYNC_SCHEDULE_JOB, {});
    await jobs.boss.send(EXPORT_SWEEP, {});
  }

  installShutdown({
    app,
    jobs,
    sender: { stop: () => queue.sender?.stop() ?? Promise.resolve() },
    database,
    simulators,
  });

  if (app) {
    await app.listen({ port: config.PORT, host: config.HOST });
    if (config.isDemo) printDemoBanner(config, seeded, simulators);
  }
}

function installShutdown(parts: {
  app?: FastifyInstance;
  jobs?: { stop(): Promise<void> };
  sender: { stop(): Promise<void> };
  database: Database;
  simulators?: Embedded.AllSimulators;
}) {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // Stop taking requests, let in-flight ones finish, then stop workers, then the database.
    const timer = setTimeout(() => process.exit(1), 15_000).unref();
    try {
      await parts.app?.close();
      await parts.jobs?.stop();
      await parts.sender.stop();
      await parts.simulators?.close();
      await parts.database.close();
      clearTimeout(timer);
      process.exit(0);
    } catch (error) {
      console.error(`shutdown after ${signal} failed`, error);
      process.exit(1);
    }
  };
  process.once('SIGINT', () => void stop('SIGINT'));
  process.once('SIGTERM', () => void stop('SIGTERM'));
}

/** Demo sign-in details go to the terminal only, never through the logger. */
function printDemoBanner(config: Config, seeded: boolean, simulators?: Embedded.AllSimulators) {
  const url = config.PUBLIC_URL;
  const lines = [
    '',
    `TrialPulse is running at ${url}`,
    seeded ? 'Demo data was created.' : 'Demo data from an earlier run is kept.',
    'Demo sign-in (each account sets up its second factor on first sign-in):',
    ...DEMO_ACCOUNTS.map(
      (account) => `  ${account.role.padEnd(9)} ${account.username}  /  ${account.password}`,
    ),
    ...(simulators
      ? [
          'Provider simulators (consent screens, control API under /__control):',
          `  Google Health ${simulators.googleHealth.baseUrl}   legacy Fitbit ${simulators.fitbitLegacy.baseUrl}`,
          `  Omron ${simulators.omron.baseUrl}   Dexcom ${simulators.dexcom.baseUrl}`,
        ]
      : []),
    '',
  ];
  process.stdout.write(lines.join('\n') + '\n');
}

main().catch((error) => {
  console.error('TrialPulse failed to start:', error);
  process.exit(1);
});
