import { dexcomReadings, type DexcomRecords } from './dexcom-data';
import { parseDexcomRange } from './dexcom.client';
import {
  type FetchContext,
  type SyncSource,
  type SyncStream,
} from '../../modules/sync/sources/types';

/**
 * Dexcom API v3: range queries of at most 30 days on `systemTime` (UTC without offset).
 * Before the first window of a run, one `dataRange` call (with `lastSyncTime` = the cursor,
 * when there is one) says where each resource has data at all, so a backfill skips empty
 * months and an incremental run with nothing new makes no further call.
 */

/** Dexcom allows 60,000 calls per hour per application (facts §3). */
export const DEXCOM_CALLS_PER_HOUR = 60_000;
export const DEXCOM_WINDOW_DAYS = 30;

type Json = Record<string, unknown>;
const record = (value: unknown): Json =>
  value && typeof value === 'object' ? (value as Json) : {};

/** `YYYY-MM-DDThh:mm:ss` in UTC, as Dexcom compares with systemTime. */
const dexcomDate = (date: Date) => date.toISOString().slice(0, 19);
const utcOf = (systemTime: string) =>
  new Date(/[zZ]|[+-]\d{2}:\d{2}$/.test(systemTime) ? systemTime : `${systemTime}Z`);

/** [start, end] of a resource's records (end inclusive), null when it has none (new ones, with lastSyncTime). */
async function rangeOf(
  ctx: FetchContext,
  resource: string,
): Promise<{ start: Date; end: Date } | null> {
  // One probe per run and cursor position (the three resources usually share one).
  const memoKey = `dataRange:${ctx.syncedUntil?.toISOString() ?? ''}`;
  let probe = ctx.memo.get(memoKey) as Json | undefined;
  if (!probe) {
    probe = record(
      await ctx.request({
        method: 'GET',
        path: '/dataRange',
        query: ctx.syncedUntil ? { lastSyncTime: ctx.syncedUntil.toISOString() } : {},
      }),
    );
    ctx.memo.set(memoKey, probe);
  }
  const bounds = record(probe[resource]);
  const start = record(bounds.start).systemTime;
  const end = record(bounds.end).systemTime;
  if (typeof start !== 'string' || typeof end !== 'string') return null;
  return { start: utcOf(start), end: utcOf(end) };
}

/**
 * One range resource. Its records become readings through `dexcomReadings`, the conversion
 * the Dexcom data call's presenter reads back (decision 0055): a stored answer equals a live one.
 */
function rangeStream(resource: 'egvs' | 'events' | 'calibrations', metrics: string[]): SyncStream {
  return {
    key: resource,
    metrics,
    cadence: 'intraday',
    maxWindowDays: DEXCOM_WINDOW_DAYS,
    async fetch(ctx, window, wanted) {
      const range = await rangeOf(ctx, resource);
      // Nothing in this window (or nothing uploaded since the cursor): no call.
      if (!range || range.end < window.from || range.start >= window.to) return [];
      const answer = await ctx.request({
        method: 'GET',
        path: `/${resource}`,
        query: { startDate: dexcomDate(window.from), endDate: dexcomDate(window.to) },
      });
      // The client's schema, as the live call parses it: one description of Dexcom's answer.
      const inWindow = <T extends { systemTime: string }>(items: T[]) =>
        items.filter((item) => {
          const recordedAt = utcOf(item.systemTime);
          return recordedAt >= window.from && recordedAt < window.to;
        });
      const records: Partial<DexcomRecords> =
        resource === 'egvs'
          ? { egvs: inWindow(parseDexcomRange('egvs', answer)) }
          : resource === 'events'
            ? { events: inWindow(parseDexcomRange('events', answer)) }
            : { calibrations: inWindow(parseDexcomRange('calibrations', answer)) };
      return dexcomReadings(records).filter((reading) => wanted.has(reading.metricKey));
    },
  };
}

export const dexcomSource: SyncSource = {
  upstream: 'dexcom',
  brand: 'Dexcom',
  streams: [
    rangeStream('egvs', ['egv', 'egv_trend_rate']),
    rangeStream('calibrations', ['calibration']),
    rangeStream('events', ['events']),
  ],
  budgets: () => [{ scope: 'app:dexcom', limit: DEXCOM_CALLS_PER_HOUR, windowSeconds: 3600 }],
};
