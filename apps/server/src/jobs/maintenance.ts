import { lt } from 'drizzle-orm';
import type { Db } from '../db/client';
import { oneTimeTokens } from '../db/schema';
import { purgeExpiredSessions } from '../modules/auth/auth.repository';
import { purgeExpiredAssertions } from '../modules/backend-clients/backend-clients.repository';
import { purgeSpentChallenges } from '../modules/human-check/human-check.repository';
import { purgeExpiredSfaRows } from '../modules/sfa/sfa.repository';
import { purgeEndedWindows } from '../plugins/rate-limit-store';
import type { JobDefinition } from './types';

export const MAINTENANCE_PURGE_EXPIRED = 'maintenance.purge-expired';

export type PurgeCounts = {
  oneTimeCodes: number;
  oneTimeTokens: number;
  sessions: number;
  rememberedDevices: number;
  /** Rate-limit windows that have ended and spent human-check challenges past expiry. */
  rateLimitHits: number;
  humanCheckSpent: number;
  /** Backend clients' assertion ids past their assertion's exp (replay store, decision 0244). */
  backendClientAssertions: number;
};

/**
 * Deletes what can no longer be used: expired one-time codes and tokens, sessions past
 * their absolute or idle expiry (their refresh tokens go with them), expired
 * remembered devices, ended rate-limit windows, expired spent human-check challenges and
 * backend clients' expired assertion ids. One transaction; returns the counts.
 * Each table's owner publishes its part (table-writes lint, decision 0155); the one-time
 * tokens, whose purposes belong to four modules, are purged here whatever their purpose.
 */
export async function purgeExpired(db: Db, now: Date = new Date()): Promise<PurgeCounts> {
  return db.transaction(async (tx) => {
    const sfa = await purgeExpiredSfaRows(tx, now);
    const tokens = await tx
      .delete(oneTimeTokens)
      .where(lt(oneTimeTokens.expiresAt, now))
      .returning({ id: oneTimeTokens.id });
    const deadSessions = await purgeExpiredSessions(tx, now);
    const hits = await purgeEndedWindows(tx, now);
    const spent = await purgeSpentChallenges(tx, now);
    const assertions = await purgeExpiredAssertions(tx, now);
    return {
      oneTimeCodes: sfa.oneTimeCodes,
      oneTimeTokens: tokens.length,
      sessions: deadSessions,
      rememberedDevices: sfa.rememberedDevices,
      rateLimitHits: hits,
      humanCheckSpent: spent,
      backendClientAssertions: assertions,
    };
  });
}

/** Every 15 minutes: purge expired security rows and log the counts. */
export const maintenanceJob: JobDefinition = {
  name: MAINTENANCE_PURGE_EXPIRED,
  queue: { retryLimit: 2, retryDelay: 30, expireInSeconds: 5 * 60 },
  cron: '*/15 * * * *',
  async handle(job, { database, logger }) {
    const counts = await purgeExpired(database.db);
    logger.info({ job: job.name, jobId: job.id, ...counts }, 'maintenance: purged expired rows');
    return counts;
  },
};
