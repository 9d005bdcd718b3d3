import type { Config } from '../config/env';
import type { Database } from '../db/client';
import type { JobDefinition, JobLogger } from './types';
import { systemClock, type Clock } from '../lib/clock';
import { createConnectionHealth } from '../modules/devices/device-connections.service';
import { createDevicesRepository } from '../modules/devices/devices.repository';
import { createMailService, mailSettingsFromConfig } from '../modules/mail/mail.service';
import { createReadingsRepository } from '../modules/sync/readings.repository';
import { createReadingsService } from '../modules/sync/readings.service';
import { createSyncRepository } from '../modules/sync/sync.repository';
import { createCompletenessDigest } from '../modules/completeness/completeness-digest';
import { createCompletenessRepository } from '../modules/completeness/completeness.repository';
import { createRowsBuilder } from '../modules/completeness/completeness.service';

export const COMPLETENESS_DIGEST = 'completeness.digest';

/** What the digest needs of the configuration: mail settings and the address links point to. */
export type DigestConfig = Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'PUBLIC_URL'>;

/** The digest runner on a database (the job and the tests use it). */
export function createCompletenessDigestFor(deps: {
  database: Database;
  config: DigestConfig;
  clock?: Clock;
  logger: JobLogger;
}) {
  const { database, config } = deps;
  const db = database.db;
  const clock = deps.clock ?? systemClock;
  return createCompletenessDigest({
    repository: createCompletenessRepository(db),
    rowsFor: createRowsBuilder({
      readings: createReadingsService({
        readings: createReadingsRepository(db),
        sync: createSyncRepository(db),
      }),
      devices: createConnectionHealth({ repository: createDevicesRepository(db) }),
      clock,
    }),
    mail: createMailService({
      db,
      settings: mailSettingsFromConfig(config),
      logger: deps.logger,
      clock,
    }),
    publicUrl: config.PUBLIC_URL,
    clock,
  });
}

/**
 * Every day at 06:00 UTC: the alert digest of the day (decision 0052). The mails go to the
 * outbox; the `mail.deliver` job sends them. A second run of the same day sends nothing.
 * `clock` decides the day and "now" of each run (the system clock unless a test injects one).
 */
export function createCompletenessDigestJob(
  config: DigestConfig,
  options: { clock?: Clock } = {},
): JobDefinition {
  const clock = options.clock ?? systemClock;
  return {
    name: COMPLETENESS_DIGEST,
    queue: { policy: 'stately', retryLimit: 3, retryDelay: 300, expireInSeconds: 30 * 60 },
    cron: '0 6 * * *',
    async handle(job, { database, logger }) {
      const result = await createCompletenessDigestFor({ database, config, clock, logger }).run();
      logger.info({ job: job.name, jobId: job.id, ...result }, 'completeness: digest run');
      return result;
    },
  };
}
