import { num, type FetchContext, type SourceReading, type SyncSource, type SyncStream } from './types';

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
const record = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});

/** `YYYY-MM-DDThh:mm:ss` in UTC, as Dexcom compares with systemTime. */
const dexcomDate = (date: Date) => date.toISOString().slice(0, 19);
const utcOf = (systemTime: string) => new Date(/[zZ]|[+-]\d{2}:\d{2}$/.test(systemTime) ? systemTime : `${systemTime}Z`);

/** [start, end] of a resource's records (end inclusive), null when it has none (new ones, with lastSyncTime). */
async function rangeOf(ctx: FetchContext, resource: string): Promise<{ start: Date; end: Date } | null> {
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

/** The offset of displayTime when it carries one (phone apps), in minutes. */
function offsetOf(displayTime: unknown): number | null {
  const match = /([+-])(\d{2}):(\d{2})$/.exec(String(displayTime ?? ''));
  if (!match) return null;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

function rangeStream(
  resource: 'egvs' | 'events' | 'calibrations',
  metrics: string[],
  read: (item: Json, wanted: ReadonlySet<string>) => Array<Omit<SourceReading, 'recordedAt' | 'utcOffsetMinutes' | 'dataSource'>>,
): SyncStream {
  return {
    key: resource,
    metrics,
    cadence: 'intraday',
    maxWindowDays: DEXCOM_WINDOW_DAYS,
    async fetch(ctx, window, wanted) {
      const range = await rangeOf(ctx, resource);
      // Nothing in this window (or nothing uploaded since the cursor): no call.
      if (!range || range.end < window.from || range.start >= window.to) return [];
      const answer = record(
        await ctx.request({
          method: 'GET',
          path: `/${resource}`,
          query: { startDate: dexcomDate(window.from), endDate: dexcomDate(window.to) },
        }),
      );
      const readings: SourceReading[] = [];
      for (const item of Array.isArray(answer.records) ? answer.records.map(record) : []) {
        if (typeof item.systemTime !== 'string') continue;
        const recordedAt = utcOf(item.systemTime);
        if (recordedAt < window.from || recordedAt >= window.to) continue;
        const common = {
          recordedAt,
          utcOffsetMinutes: offsetOf(item.displayTime),
          dataSource: typeof item.transmitterId === 'string' ? item.transmitterId : typeof item.displayDevice === 'string' ? item.displayDevice : null,
        };
        for (const reading of read(item, wanted)) readings.push({ ...common, ...reading });
      }
      return readings;
    },
  };
}

export const dexcomSource: SyncSource = {
  upstream: 'dexcom',
  brand: 'Dexcom',
  streams: [
    rangeStream('egvs', ['egv', 'egv_trend_rate'], (item, wanted) => {
      const out: Array<{ metricKey: string; value: number | null; valueJson?: unknown }> = [];
      const value = num(item.value);
      if (wanted.has('egv') && value !== null) out.push({ metricKey: 'egv', value, valueJson: { status: item.status ?? null, trend: item.trend ?? null } });
      const rate = num(item.trendRate);
      if (wanted.has('egv_trend_rate') && rate !== null) out.push({ metricKey: 'egv_trend_rate', value: rate });
      return out;
    }),
    rangeStream('calibrations', ['calibration'], (item, wanted) => {
      const value = num(item.value);
      return wanted.has('calibration') && value !== null ? [{ metricKey: 'calibration', value }] : [];
    }),
    rangeStream('events', ['events'], (item, wanted) =>
      wanted.has('events')
        ? [{ metricKey: 'events', value: num(item.value), valueJson: { eventType: item.eventType ?? null, eventSubType: item.eventSubType ?? null, unit: item.unit ?? null, value: item.value ?? null } }]
        : [],
    ),
  ],
  budgets: () => [{ scope: 'app:dexcom', limit: DEXCOM_CALLS_PER_HOUR, windowSeconds: 3600 }],
};
