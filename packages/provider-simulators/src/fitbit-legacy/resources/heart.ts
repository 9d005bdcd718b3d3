import { MINUTE_MS } from '../../common/civil-time';
import { datesBetween, parseDate, parseRange } from '../dates';
import {
  type FitbitCaller,
  type FitbitResource,
  type ResourceResult,
  bad,
  clockOf,
  windowMinutes,
} from './context';
import { legacyZones, parseTimeWindow, restingHeartRateOf, summaryOf } from './activities';

/**
 * Heart rate (facts §1.7): daily time series with Fitbit's four zones and restingHeartRate
 * (left out on days with too little data), and intraday at 1 s (irregular samples, every few
 * seconds), 1, 5 or 15 minutes over worn minutes only.
 */

const SEGMENT = '([^/]+)';
const TIME = '(?:/time/(\\d{2}:\\d{2})/(\\d{2}:\\d{2}))?';

export const heartResources: FitbitResource[] = [
  {
    version: '1',
    pattern: new RegExp(
      `^activities/heart/date/${SEGMENT}/1d/(1sec|1min|5min|15min)${TIME}\\.json$`,
    ),
    scope: 'heartrate',
    handle: (caller, match) =>
      intraday(caller, match[1] ?? '', match[1] ?? '', match[2] ?? '', match[3], match[4]),
  },
  {
    version: '1',
    pattern: new RegExp(
      `^activities/heart/date/${SEGMENT}/${SEGMENT}/(1sec|1min|5min|15min)${TIME}\\.json$`,
    ),
    scope: 'heartrate',
    handle: (caller, match) =>
      intraday(caller, match[1] ?? '', match[2] ?? '', match[3] ?? '', match[4], match[5]),
  },
  {
    version: '1',
    pattern: new RegExp(`^activities/heart/date/${SEGMENT}/${SEGMENT}\\.json$`),
    scope: 'heartrate',
    handle: (caller, match) => {
      const range = parseRange(match[1] ?? '', match[2] ?? '', {
        today: caller.today,
        memberSince: caller.account.memberSince,
        periods: ['1d', '7d', '30d', '1w', '1m'],
        maxDays: 366,
      });
      if ('error' in range) return bad(range.error);
      return {
        body: {
          'activities-heart': datesBetween(range.start, range.end).map((date) => {
            const rhr = restingHeartRateOf(caller, date);
            return {
              dateTime: date,
              value: {
                customHeartRateZones: [],
                heartRateZones: legacyZones(summaryOf(caller, date)),
                ...(rhr !== null && { restingHeartRate: rhr }),
              },
            };
          }),
        },
      };
    },
  },
];

function intraday(
  caller: FitbitCaller,
  first: string,
  second: string,
  detail: string,
  startTime: string | undefined,
  endTime: string | undefined,
): ResourceResult {
  const start = parseDate(first, caller.today);
  if ('error' in start) return bad(start.error);
  const end = parseDate(second, caller.today, 'endDate');
  if ('error' in end) return bad(end.error);
  const window = parseTimeWindow(start.date, end.date, startTime, endTime);
  if ('error' in window) return window.error;
  const minutes = windowMinutes(caller, start.date, end.date, window.startMinute, window.endMinute);
  let dataset: Array<{ time: string; value: number }>;
  let interval = 1;
  if (detail === '1sec') {
    dataset = [];
    for (const { date, minute, label } of minutes) {
      const series = caller.model.day(date);
      const shift = label - (series.minuteUtc[minute] ?? 0);
      for (const sample of caller.model.heartRateSamples(date, minute)) {
        dataset.push({ time: clockOf(sample.utc + shift), value: sample.bpm });
      }
    }
  } else {
    interval = detail === '15min' ? 15 : detail === '5min' ? 5 : 1;
    const buckets = new Map<number, { sum: number; count: number }>();
    for (const { date, minute, label } of minutes) {
      const bpm = caller.model.day(date).heartRate[minute] ?? 0;
      if (!bpm) continue;
      const key = Math.floor(label / (interval * MINUTE_MS));
      const bucket = buckets.get(key) ?? { sum: 0, count: 0 };
      bucket.sum += bpm;
      bucket.count++;
      buckets.set(key, bucket);
    }
    dataset = [...buckets].map(([key, bucket]) => ({
      time: clockOf(key * interval * MINUTE_MS),
      value: Math.round(bucket.sum / bucket.count),
    }));
  }
  return {
    body: {
      // In intraday answers the zones sit on the entry itself (facts §1.7 [S]).
      'activities-heart': datesBetween(start.date, end.date).map((date) => {
        const rhr = restingHeartRateOf(caller, date);
        return {
          customHeartRateZones: [],
          dateTime: date,
          heartRateZones: legacyZones(summaryOf(caller, date)),
          value: rhr === null ? '0' : String(rhr),
        };
      }),
      'activities-heart-intraday': {
        dataset,
        datasetInterval: interval,
        datasetType: detail === '1sec' ? 'second' : 'minute',
      },
    },
  };
}
