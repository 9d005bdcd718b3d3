import type { Database } from '../../db/client';
import type { Clock } from '../../lib/clock';
import { systemClock } from '../../lib/clock';
import { createProviderRegistry } from '../devices/core/provider-registry';
import type { ProviderSettings } from '../devices/core/provider-settings';
import { createDeviceConnectionsServiceOn } from '../devices/device-connections.service';
import { createReadingsRepository } from './readings.repository';
import { createReadingsService } from './readings.service';
import { createSyncRunsRepository, createSyncRepository } from './sync.repository';
import { createSyncService, type SyncService, type SyncServiceDeps } from './sync.service';

/** What the sync needs besides the database: providers, the token key and its bounds. */
export type SyncSettings = {
  providers: ProviderSettings;
  encryptionKey: string;
  clock?: Clock;
  /** Time box of one run (seconds). */
  runSeconds?: number;
  /** Backfill bound in days (demo: 60). */
  maxBackfillDays?: number;
  /** Tests only: the connection lease's length (default SYNC_LEASE_MS) and its clock (default real time). */
  leaseMs?: number;
  leaseClock?: Clock;
  leaseRenewMs?: number;
  log?: (obj: object, msg: string) => void;
  /** Provider sources (tests tighten a budget); default SYNC_SOURCES. */
  sources?: SyncServiceDeps['sources'];
};

/** Builds the sync service on a database: readings write path, token refresh, call budgets. */
export function buildSyncService(database: Database, settings: SyncSettings): SyncService {
  const clock = settings.clock ?? systemClock;
  const readings = createReadingsService({
    readings: createReadingsRepository(database.db),
    sync: createSyncRepository(database.db),
    now: () => clock.now(),
  });
  return createSyncService({
    runs: createSyncRunsRepository(database.db),
    readings,
    connections: createDeviceConnectionsServiceOn(database.db, {
      providers: createProviderRegistry(settings.providers, { clock }),
      clock,
      encryptionKey: settings.encryptionKey,
    }),
    providers: settings.providers,
    clock,
    ...(settings.runSeconds !== undefined && { runSeconds: settings.runSeconds }),
    ...(settings.maxBackfillDays !== undefined && { maxBackfillDays: settings.maxBackfillDays }),
    ...(settings.leaseMs !== undefined && { leaseMs: settings.leaseMs }),
    ...(settings.leaseClock && { leaseClock: settings.leaseClock }),
    ...(settings.leaseRenewMs !== undefined && { leaseRenewMs: settings.leaseRenewMs }),
    ...(settings.log && { log: settings.log }),
    ...(settings.sources && { sources: settings.sources }),
  });
}
