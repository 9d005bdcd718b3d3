import { lt, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../db/client';
import { rateLimitHits } from '../db/schema';
import type { Clock } from '../lib/clock';

type Result = { current: number; ttl: number };
type Callback = (error: Error | null, result?: Result) => void;
type RouteParams = { routeInfo?: { method?: string | string[]; url?: string } };

/**
 * A store for @fastify/rate-limit that keeps the counters in PostgreSQL (`rate_limit_hits`),
 * so every web process counts against the same limit: with two processes behind a load
 * balancer the 31st sign-in attempt of a client is refused whichever process gets it.
 *
 * Fixed windows, one atomic upsert per request: a key's window starts at its first hit and
 * ends `timeWindow` later; the hit that finds an ended window starts a new one. Rows of
 * ended windows are deleted by the maintenance job.
 */
export function postgresRateLimitStore(db: Db, clock: Clock) {
  return class PostgresRateLimitStore {
    /** @fastify/rate-limit constructs the root store with its options; children get a prefix. */
    #prefix = 'global|';

    withPrefix(prefix: string) {
      const store = new PostgresRateLimitStore();
      store.#prefix = prefix;
      return store;
    }

    incr(key: string, callback: Callback, timeWindow: number): void {
      const now = clock.now();
      const resetAt = new Date(now.getTime() + timeWindow);
      const ended = sql`${rateLimitHits.resetAt} <= ${now.toISOString()}::timestamptz`;
      db.insert(rateLimitHits)
        .values({ key: this.#prefix + key, hits: 1, resetAt })
        .onConflictDoUpdate({
          target: rateLimitHits.key,
          set: {
            hits: sql`CASE WHEN ${ended} THEN 1 ELSE ${rateLimitHits.hits} + 1 END`,
            resetAt: sql`CASE WHEN ${ended} THEN ${resetAt.toISOString()}::timestamptz ELSE ${rateLimitHits.resetAt} END`,
          },
        })
        .returning({ hits: rateLimitHits.hits, resetAt: rateLimitHits.resetAt })
        .then(
          ([row]) =>
            callback(null, {
              current: row!.hits,
              ttl: Math.max(0, row!.resetAt.getTime() - now.getTime()),
            }),
          (error: Error) => callback(error),
        );
    }

    read(key: string, callback: Callback): void {
      const now = clock.now();
      db.select({ hits: rateLimitHits.hits, resetAt: rateLimitHits.resetAt })
        .from(rateLimitHits)
        .where(sql`${rateLimitHits.key} = ${this.#prefix + key}`)
        .then(
          ([row]) =>
            callback(
              null,
              !row || row.resetAt <= now
                ? { current: 0, ttl: 0 }
                : { current: row.hits, ttl: row.resetAt.getTime() - now.getTime() },
            ),
          (error: Error) => callback(error),
        );
    }

    /** One counter space per route: the key gets the route's method and path in front. */
    child(routeParams: object) {
      // At run time this is the route's merged limit settings, with the route as routeInfo.
      const params = routeParams as RouteParams;
      const method = [params.routeInfo?.method ?? ''].flat().join(',');
      return this.withPrefix(`${method} ${params.routeInfo?.url ?? ''}|`);
    }
  };
}

/**
 * The maintenance purge's part (jobs/maintenance.ts), in its transaction: rate-limit windows
 * that have ended. Returns how many went.
 */
export async function purgeEndedWindows(tx: DbOrTx, now: Date): Promise<number> {
  const ended = await tx
    .delete(rateLimitHits)
    .where(lt(rateLimitHits.resetAt, now))
    .returning({ key: rateLimitHits.key });
  return ended.length;
}
