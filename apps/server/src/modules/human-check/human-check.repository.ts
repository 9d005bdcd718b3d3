import { lt } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { humanCheckSpent } from '../../db/schema';
import type { ReplayStore } from './altcha-verifier';

/**
 * Spent ALTCHA challenges in the database (`human_check_spent`), shared by every web
 * process: the first insert of a challenge wins, any later one (in this or another
 * process, concurrently or not) finds the row and is refused as a replay. Rows are
 * deleted by the maintenance job once the challenge has expired.
 */
export function createDatabaseReplayStore(db: Db): ReplayStore {
  return {
    async consume(challenge, expiresAtMs) {
      const inserted = await db
        .insert(humanCheckSpent)
        .values({ challenge, expiresAt: new Date(expiresAtMs) })
        .onConflictDoNothing()
        .returning({ challenge: humanCheckSpent.challenge });
      return inserted.length === 1;
    },
  };
}

/**
 * The maintenance purge's part (jobs/maintenance.ts), in its transaction: spent challenges past
 * their expiry, which can no longer be replayed anyway. Returns how many went.
 */
export async function purgeSpentChallenges(tx: DbOrTx, now: Date): Promise<number> {
  const spent = await tx
    .delete(humanCheckSpent)
    .where(lt(humanCheckSpent.expiresAt, now))
    .returning({ challenge: humanCheckSpent.challenge });
  return spent.length;
}
