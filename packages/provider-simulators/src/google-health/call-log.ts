/**
 * The simulator's own count of data API calls per account, so a test can check a client
 * against the provider's side of the quota (300 requests per user per minute, windows
 * aligned to the clock minute as the rate limiter counts them) instead of the client's own
 * bookkeeping. Every call with a valid token is counted, whatever the answer: served,
 * refused by the quota (`overQuota`) or failed by an injected fault (`faults`).
 *
 * `GET /__control/calls[?account=<id>]` answers the counters; `DELETE /__control/calls`
 * clears them (so does `POST /__control/reset`).
 */
import type { FastifyInstance } from 'fastify';
import { routeConfig } from '../common/server';

export type GoogleCallOutcome = 'ok' | 'over-quota' | `fault:${string}`;

export type GoogleCall = {
  at: string;
  accountId: string;
  path: string;
  outcome: GoogleCallOutcome;
};

export type GoogleAccountCalls = {
  accountId: string;
  total: number;
  /** Calls refused with 429 because the account's minute was used up. */
  overQuota: number;
  /** Calls answered by an injected fault, by fault kind. */
  faults: Record<string, number>;
  /** Calls per clock minute (oldest first); `start` is the minute's ISO instant. */
  minutes: Array<{ start: string; calls: number }>;
  /** The most calls any one minute received. */
  busiestMinute: number;
};

const MAX_LOGGED = 20_000;

export function createGoogleCallLog(limitPerMinute: number) {
  let calls: Array<{ atMs: number; accountId: string; path: string; outcome: GoogleCallOutcome }> =
    [];
  let dropped = 0;

  function record(accountId: string, path: string, atMs: number, outcome: GoogleCallOutcome): void {
    calls.push({ atMs, accountId, path, outcome });
    if (calls.length > MAX_LOGGED) {
      calls.shift();
      dropped += 1;
    }
  }

  function countersOf(accountId: string): GoogleAccountCalls {
    const own = calls.filter((call) => call.accountId === accountId);
    const perMinute = new Map<number, number>();
    const faults: Record<string, number> = {};
    let overQuota = 0;
    for (const call of own) {
      const minute = Math.floor(call.atMs / 60_000) * 60_000;
      perMinute.set(minute, (perMinute.get(minute) ?? 0) + 1);
      if (call.outcome === 'over-quota') overQuota += 1;
      else if (call.outcome.startsWith('fault:')) {
        const kind = call.outcome.slice('fault:'.length);
        faults[kind] = (faults[kind] ?? 0) + 1;
      }
    }
    const minutes = [...perMinute.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([start, count]) => ({ start: new Date(start).toISOString(), calls: count }));
    return {
      accountId,
      total: own.length,
      overQuota,
      faults,
      minutes,
      busiestMinute: Math.max(0, ...minutes.map((minute) => minute.calls)),
    };
  }

  function counters(accountId?: string) {
    const ids = accountId ? [accountId] : [...new Set(calls.map((call) => call.accountId))];
    return {
      limitPerMinute: limitPerMinute,
      droppedFromLog: dropped,
      accounts: ids.map(countersOf),
      calls: calls
        .filter((call) => !accountId || call.accountId === accountId)
        .map((call): GoogleCall => ({
          at: new Date(call.atMs).toISOString(),
          accountId: call.accountId,
          path: call.path,
          outcome: call.outcome,
        })),
    };
  }

  function reset(): void {
    calls = [];
    dropped = 0;
  }

  function registerRoutes(app: FastifyInstance): void {
    const config = routeConfig('control');
    app.get('/__control/calls', { config }, async (request) => {
      const { account } = request.query as { account?: string };
      return counters(account || undefined);
    });
    app.delete('/__control/calls', { config }, async (_request, reply) => {
      reset();
      return reply.code(204).send();
    });
  }

  return { record, counters, reset, registerRoutes };
}

export type GoogleCallLog = ReturnType<typeof createGoogleCallLog>;
