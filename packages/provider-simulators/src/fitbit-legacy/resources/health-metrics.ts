import { localDayUtcRange } from '../../common/civil-time';
import { datesBetween, parseDate, parseRange } from '../dates';
import { type FitbitCaller, type FitbitResource, bad, localTimestamp } from './context';
import { sleepsOf } from './sleep';

/**
 * SpO2 (facts §1.10: summary and per-minute readings of the main sleep that ended on the
 * date; ranges ≤ 30 days; `{}` for a day without data) and cardio fitness score
 * (§1.11: `vo2Max` a string, a range like "42-46" without GPS runs; ≤ 30 days).
 */

export const healthMetricResources: FitbitResource[] = [
  {
    version: '1',
    pattern: /^spo2\/date\/([^/]+)\/all\.json$/,
    scope: 'oxygen_saturation',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      return { body: spo2Intraday(caller, parsed.date) ?? {} };
    },
  },
  {
    version: '1',
    pattern: /^spo2\/date\/([^/]+)\/([^/]+)\/all\.json$/,
    scope: 'oxygen_saturation',
    handle: (caller, match) => {
      const range = parseRange(match[1] ?? '', match[2] ?? '', {
        ...rangeOptions(caller),
        maxDays: 30,
      });
      if ('error' in range) return bad(range.error);
      return {
        body: datesBetween(range.start, range.end).flatMap(
          (date) => spo2Intraday(caller, date) ?? [],
        ),
      };
    },
  },
  {
    version: '1',
    pattern: /^spo2\/date\/([^/]+)\.json$/,
    scope: 'oxygen_saturation',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      return { body: spo2Summary(caller, parsed.date) ?? {} };
    },
  },
  {
    version: '1',
    pattern: /^spo2\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'oxygen_saturation',
    handle: (caller, match) => {
      const range = parseRange(match[1] ?? '', match[2] ?? '', {
        ...rangeOptions(caller),
        maxDays: 30,
      });
      if ('error' in range) return bad(range.error);
      return {
        body: datesBetween(range.start, range.end).flatMap(
          (date) => spo2Summary(caller, date) ?? [],
        ),
      };
    },
  },
  {
    version: '1',
    pattern: /^cardioscore\/date\/([^/]+)\.json$/,
    scope: 'cardio_fitness',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      return { body: { cardioScore: cardioScore(caller, parsed.date) } };
    },
  },
  {
    version: '1',
    pattern: /^cardioscore\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'cardio_fitness',
    handle: (caller, match) => {
      const range = parseRange(match[1] ?? '', match[2] ?? '', {
        ...rangeOptions(caller),
        maxDays: 30,
      });
      if ('error' in range) return bad(range.error);
      return {
        body: {
          cardioScore: datesBetween(range.start, range.end).flatMap((date) =>
            cardioScore(caller, date),
          ),
        },
      };
    },
  },
];

function rangeOptions(caller: FitbitCaller) {
  return { today: caller.today, memberSince: caller.account.memberSince, periods: [] };
}

function night(caller: FitbitCaller, date: string) {
  // Only once the main sleep has synced.
  if (!sleepsOf(caller, date).some((sleep) => sleep.isMainSleep)) return null;
  return caller.model.spo2(date);
}

function spo2Summary(caller: FitbitCaller, date: string) {
  const data = night(caller, date);
  return data
    ? { dateTime: date, value: { avg: data.average, min: data.min, max: data.max } }
    : null;
}

function spo2Intraday(caller: FitbitCaller, date: string) {
  const data = night(caller, date);
  return data
    ? {
        dateTime: date,
        minutes: data.readings.map((reading) => ({
          value: reading.value,
          minute: localTimestamp(reading.civil).slice(0, 19),
        })),
      }
    : null;
}

function cardioScore(caller: FitbitCaller, date: string) {
  const vo2 = caller.model.vo2Max(date);
  // Available once the morning's data has synced, like the resting heart rate.
  const [dayStart] = localDayUtcRange(caller.account.timeZone, date);
  if (!vo2 || dayStart + 6 * 3_600_000 > caller.trackerCutoff) return [];
  const value = vo2.estimated
    ? `${Math.floor(vo2.value - 2)}-${Math.floor(vo2.value + 2)}`
    : String(Math.round(vo2.value));
  return [{ dateTime: date, value: { vo2Max: value } }];
}
