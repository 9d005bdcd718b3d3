import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { loadConfig, type Config } from '../config/env';
import type { Database } from '../db/client';
import type { JobLogger } from '../jobs/types';
import { systemClock, type Clock } from '../lib/clock';
import { argon2Hasher } from '../lib/passwords';
import type { ProviderSettings } from '../modules/devices/core/provider-settings';
import { createServices, type Services, type SyncOptions } from '../services';

const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * The services of a test process, built by `createServices` as main.ts builds them (the one
 * builder): for `startJobs({ services })` and tests that call a service directly. The
 * configuration is a test one (random secrets) unless `config` or `env` say otherwise.
 */
export function testServices(
  database: Database,
  options: {
    /** A whole configuration (e.g. a test app's), taking precedence over `env`. */
    config?: Config;
    env?: Record<string, string>;
    clock?: Clock;
    providers?: ProviderSettings;
    /** The token key the test's connections were stored with (TOKEN_ENCRYPTION_KEY). */
    encryptionKey?: string;
    sync?: SyncOptions;
    logger?: JobLogger;
  } = {},
): Services {
  const config =
    options.config ??
    loadConfig({
      TRIALPULSE_MODE: 'test',
      DATA_DIR: path.join(os.tmpdir(), 'trialpulse-test-services'),
      APP_SECRET: randomBytes(32).toString('hex'),
      TOKEN_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      SERVE_WEB: 'false',
      JOBS_ENABLED: 'false',
      ...options.env,
    });
  return createServices({
    config: options.encryptionKey
      ? { ...config, TOKEN_ENCRYPTION_KEY: options.encryptionKey }
      : config,
    database,
    clock: options.clock ?? systemClock,
    hasher: argon2Hasher,
    providers: options.providers ?? {},
    logger: options.logger ?? quiet,
    ...(options.sync && { sync: options.sync }),
  });
}

/** What sync tests set: providers, the token key, the clock, and the sync's own options. */
export type SyncSettings = {
  providers: ProviderSettings;
  encryptionKey: string;
  clock?: Clock;
} & SyncOptions;

/** The sync service of `testServices` (test-only shortcut; createServices builds it). */
export function buildSyncService(database: Database, settings: SyncSettings) {
  const { providers, encryptionKey, clock, ...sync } = settings;
  return testServices(database, { providers, encryptionKey, ...(clock && { clock }), sync }).sync;
}
