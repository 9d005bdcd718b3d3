import { DAY_MS, num, utcDate, type SourceReading, type SyncSource, type SyncStream } from './types';

/**
 * Omron `POST /measurement`: one type per call, `since` a local date (one day earlier than
 * needed, since Omron filters on the local date), pages by `nextPaginationKey` until the
 * answer is no longer truncated. Readings outside the window are dropped here.
 */

/** No documented per-user limit; the simulator's 10,000 calls per client per hour, shared by every user. */
export const OMRON_CALLS_PER_HOUR = 10_000;
const PAGE_LIMIT = 1000;
const MAX_PAGES = 1000;

type Json = Record<string, unknown>;
const record = (value: unknown): Json => (value && typeof value === 'object' ? (value as Json) : {});

/** "-05:00" → -300. */
function offsetOf(value: unknown): number | null {
  const match = /^([+-])(\d{2}):?(\d{2})$/.exec(String(value ?? ''));
  if (!match) return null;
  return (match[1] === '-' ? -1 : 1) * (Number(match[2]) * 60 + Number(match[3]));
}

function measurementStream(
  type: 'bloodpressure' | 'weight',
  listKey: 'bloodPressure' | 'weight',
  fields: Record<string, string>,
): SyncStream {
  return {
    key: type,
    metrics: Object.keys(fields),
    cadence: 'intraday',
    maxWindowDays: 365,
    async fetch(ctx, window, wanted) {
      const readings: SourceReading[] = [];
      const since = utcDate(new Date(window.from.getTime() - DAY_MS));
      let paginationKey: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = record(
          await ctx.request({
            method: 'POST',
            path: '/measurement',
            form: { type, since, limit: String(PAGE_LIMIT), sortOrder: 'asc', [`${type}PaginationKey`]: paginationKey },
          }),
        );
        const result = record(answer.result);
        for (const item of Array.isArray(result[listKey]) ? (result[listKey] as unknown[]).map(record) : []) {
          if (typeof item.dateTime !== 'string') continue;
          const at = new Date(item.dateTime);
          if (at < window.from || at >= window.to) continue;
          for (const [metricKey, field] of Object.entries(fields)) {
            const value = num(item[field]);
            if (!wanted.has(metricKey) || value === null) continue;
            readings.push({
              metricKey,
              recordedAt: at,
              utcOffsetMinutes: offsetOf(item.dateTimeUtcOffset),
              value,
              ...(metricKey === 'systolic' && typeof item.possibleAfib === 'boolean' && { valueJson: { possibleAfib: item.possibleAfib } }),
              dataSource: typeof item.deviceType === 'string' ? item.deviceType : null,
            });
          }
        }
        paginationKey = result.truncated === true && typeof result.nextPaginationKey === 'string' ? result.nextPaginationKey : undefined;
        if (!paginationKey) break;
      }
      return readings;
    },
  };
}

export const omronSource: SyncSource = {
  upstream: 'omron',
  brand: 'Omron',
  streams: [
    measurementStream('bloodpressure', 'bloodPressure', { systolic: 'systolic', diastolic: 'diastolic', pulse: 'pulse' }),
    measurementStream('weight', 'weight', { weight: 'weight', body_fat: 'bodyFatPercentage', bmi: 'bmi' }),
  ],
  budgets: () => [{ scope: 'app:omron', limit: OMRON_CALLS_PER_HOUR, windowSeconds: 3600 }],
};
