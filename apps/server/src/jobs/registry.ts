import type { Config } from '../config/env';
import type { Db } from '../db/client';
import { providerSettingsFromConfig } from '../modules/devices/core/provider-settings';
import { createMailDeliverJob } from '../modules/mail/mail.job';
import { mailSettingsFromConfig } from '../modules/mail/mail.service';
import { exportJobDefinitions } from '../modules/export/export.job';
import { createReadingsRepository } from '../modules/sync/readings.repository';
import { createReadingsService } from '../modules/sync/readings.service';
import { createSyncJobs } from '../modules/sync/sync.jobs';
import { createSyncRepository } from '../modules/sync/sync.repository';
import { createCompletenessDigestJob } from './completeness-digest.job';
import { maintenanceJob } from './maintenance';
import type { JobDefinition } from './types';

/**
 * Every job the worker runs: the one list main.ts starts and the job tests start. Add a
 * feature's job (sync, export, retention, …) here; it gets what it needs from the parsed
 * configuration (the mail job its SMTP settings, the export jobs DATA_DIR, the device sync
 * its providers and token key — without them, as in a test of another job, the sync jobs
 * find nothing to sync).
 */
export function jobDefinitions(
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'DATA_DIR' | 'PUBLIC_URL'> & Partial<Config>,
): readonly JobDefinition[] {
  const mailSettings = mailSettingsFromConfig(config);
  return [
    maintenanceJob,
    createMailDeliverJob(() => mailSettings),
    ...exportJobDefinitions(config, readingsFor),
    ...createSyncJobs({
      providers: config.PUBLIC_URL ? providerSettingsFromConfig(config as Config) : {},
      encryptionKey: config.TOKEN_ENCRYPTION_KEY ?? '',
      runSeconds: config.SYNC_RUN_SECONDS ?? 120,
      maxBackfillDays: config.SYNC_BACKFILL_DAYS ?? (config.isDemo ? 60 : 365),
    }),
    createCompletenessDigestJob(config),
  ];
}

/** Stored readings for the jobs that read them (exports). */
function readingsFor(db: Db) {
  return createReadingsService({
    readings: createReadingsRepository(db),
    sync: createSyncRepository(db),
  });
}
