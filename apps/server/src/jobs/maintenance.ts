import { lt, or } from 'drizzle-orm';
import type { Db } from '../db/client';
import {
  humanCheckSpent,
  oneTimeCodes,
  oneTimeTokens,
  rateLimitHits,
  rememberedDevices,
  sessions,
} from '../db/schema';
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
};

/**
 * Deletes what can no longer be used: expired one-time codes and tokens, sessions past
 * their absolute or idle expiry (their refresh tokens go with them), expired
 * remembered devices, ended rate-limit windows and expired spent human-check challenges. One transaction; returns the counts.
 */
export async function purgeExpired(db: Db, now: Date = new Date()): Promise<PurgeCounts> {
  return db.transaction(async (tx) => {
    const codes = await tx
      .delete(oneTimeCodes)
      .where(lt(oneTimeCodes.expiresAt, now))
      .returning({ id: oneTimeCodes.id });
    const tokens = await tx
      .delete(oneTimeTokens)
      .where(lt(oneTimeTokens.expiresAt, now))
      .returning({ id: oneTimeTokens.id });
    const deadSessions = await tx
      .delete(sessions)
      .where(or(lt(sessions.expiresAt, now), lt(sessions.idleExpiresAt, now)))
      .returning({ id: sessions.id });
    const devices = await tx
      .delete(rememberedDevices)
      .where(lt(rememberedDevices.expiresAt, now))
      .returning({ id: rememberedDevices.id });
    const hits = await tx
      .delete(rateLimitHits)
      .where(lt(rateLimitHits.resetAt, now))
      .returning({ key: rateLimitHits.key });
    const spent = await tx
      .delete(humanCheckSpent)
      .where(lt(humanCheckSpent.expiresAt, now))
      .returning({ challenge: humanCheckSpent.challenge });
    return {
      oneTimeCodes: codes.length,
      oneTimeTokens: tokens.length,
      sessions: deadSessions.length,
      rememberedDevices: devices.length,
      rateLimitHits: hits.length,
      humanCheckSpent: spent.length,
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
