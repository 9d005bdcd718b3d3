import { utcInstant } from '../time-text';
import { omronReadings, type OmronBloodPressureLike, type OmronWeightLike } from './omron-data';
import {
  DAY_MS,
  num,
  utcDate,
  type SyncSource,
  type SyncStream,
} from '../../modules/sync/sources/types';

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
const record = (value: unknown): Json =>
  value && typeof value === 'object' ? (value as Json) : {};

const text = (value: unknown): string | null => (typeof value === 'string' ? value : null);

/** An item of the answer in the conversion's terms (lenient: a field of the wrong type is left out). */
const common = (item: Json) => ({
  dateTime: item.dateTime as string,
  dateTimeUtcOffset: text(item.dateTimeUtcOffset),
  deviceType: text(item.deviceType),
});
const RECORDS = {
  bloodPressure: (item: Json): OmronBloodPressureLike => ({
    ...common(item),
    systolic: num(item.systolic),
    diastolic: num(item.diastolic),
    pulse: num(item.pulse),
    possibleAfib: typeof item.possibleAfib === 'boolean' ? item.possibleAfib : null,
  }),
  weight: (item: Json): OmronWeightLike => ({
    ...common(item),
    weight: num(item.weight),
    bodyFatPercentage: num(item.bodyFatPercentage),
    bmi: num(item.bmi),
  }),
};

/**
 * One measurement type. Its records become readings through `omronReadings`, the conversion
 * the Omron data call's presenter reads back (decision 0055): a stored answer equals a live one.
 */
function measurementStream(
  type: 'bloodpressure' | 'weight',
  listKey: 'bloodPressure' | 'weight',
  metrics: string[],
): SyncStream {
  return {
    key: type,
    metrics,
    cadence: 'intraday',
    maxWindowDays: 365,
    async fetch(ctx, window, wanted) {
      const items: Json[] = [];
      const since = utcDate(new Date(window.from.getTime() - DAY_MS));
      let paginationKey: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const answer = record(
          await ctx.request({
            method: 'POST',
            path: '/measurement',
            form: {
              type,
              since,
              limit: String(PAGE_LIMIT),
              sortOrder: 'asc',
              [`${type}PaginationKey`]: paginationKey,
            },
          }),
        );
        const result = record(answer.result);
        for (const item of Array.isArray(result[listKey])
          ? (result[listKey] as unknown[]).map(record)
          : []) {
          if (typeof item.dateTime !== 'string') continue;
          const at = utcInstant(item.dateTime);
          if (at < window.from || at >= window.to) continue;
          items.push(item);
        }
        paginationKey =
          result.truncated === true && typeof result.nextPaginationKey === 'string'
            ? result.nextPaginationKey
            : undefined;
        if (!paginationKey) break;
      }
      return omronReadings({ [listKey]: items.map(RECORDS[listKey]) }).filter((reading) =>
        wanted.has(reading.metricKey),
      );
    },
  };
}

export const omronSource: SyncSource = {
  upstream: 'omron',
  brand: 'Omron',
  streams: [
    measurementStream('bloodpressure', 'bloodPressure', ['systolic', 'diastolic', 'pulse']),
    measurementStream('weight', 'weight', ['weight', 'body_fat', 'bmi']),
  ],
  budgets: () => [{ scope: 'app:omron', limit: OMRON_CALLS_PER_HOUR, windowSeconds: 3600 }],
};
