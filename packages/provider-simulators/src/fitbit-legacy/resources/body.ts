import { addDays } from '../../common/civil-time';
import type { WeighIn } from '../../common/wearable-model';
import { type Period, datesBetween, parseDate, parseRange } from '../dates';
import { round, weightOf } from '../units';
import {
  type FitbitCaller,
  type FitbitResource,
  type ResourceResult,
  bad,
  clockOf,
} from './context';

/**
 * Body (facts §1.9): weight logs (≤ 31 days) and fat logs (≤ 30 days) by date, period or
 * range, and the body time series bmi/fat/weight (≤ 1095 days) whose string values carry
 * the last measurement forward on days without one.
 */

const LOG_PERIODS: Period[] = ['1d', '7d', '30d', '1w', '1m'];
const SERIES_PERIODS: Period[] = ['1d', '7d', '30d', '1w', '1m', '3m', '6m', '1y', 'max'];

export const bodyResources: FitbitResource[] = [
  {
    version: '1',
    pattern: /^body\/log\/(weight|fat)\/date\/([^/]+)\.json$/,
    scope: 'weight',
    handle: (caller, match) => logs(caller, match[1] as 'weight' | 'fat', match[2] ?? '', '1d'),
  },
  {
    version: '1',
    pattern: /^body\/log\/(weight|fat)\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'weight',
    handle: (caller, match) =>
      logs(caller, match[1] as 'weight' | 'fat', match[2] ?? '', match[3] ?? ''),
  },
  {
    version: '1',
    pattern: /^body\/(bmi|fat|weight)\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'weight',
    handle: (caller, match) => {
      const resource = match[1] as 'bmi' | 'fat' | 'weight';
      const range = parseRange(match[2] ?? '', match[3] ?? '', {
        today: caller.today,
        memberSince: caller.account.memberSince,
        periods: SERIES_PERIODS,
        maxDays: 1095,
      });
      if ('error' in range) return bad(range.error);
      let last = lastWeighInBefore(caller, range.start, resource);
      const entries = datesBetween(range.start, range.end).map((date) => {
        const weighIn = visibleWeighIn(caller, date);
        if (weighIn && (resource !== 'fat' || weighIn.bodyFatPercent !== null)) last = weighIn;
        return { dateTime: date, value: last ? String(bodyValue(caller, last, resource)) : '0' };
      });
      return { body: { [`body-${resource}`]: entries } };
    },
  },
];

function logs(
  caller: FitbitCaller,
  kind: 'weight' | 'fat',
  first: string,
  second: string,
): ResourceResult {
  const range =
    second === '1d'
      ? (() => {
          const parsed = parseDate(first, caller.today);
          return 'error' in parsed ? parsed : { start: parsed.date, end: parsed.date };
        })()
      : parseRange(first, second, {
          today: caller.today,
          memberSince: caller.account.memberSince,
          periods: LOG_PERIODS,
          maxDays: kind === 'weight' ? 31 : 30,
        });
  if ('error' in range) return bad(range.error);
  const entries = datesBetween(range.start, range.end).flatMap(
    (date): Array<Record<string, unknown>> => {
      const weighIn = visibleWeighIn(caller, date);
      if (!weighIn) return [];
      const time = clockOf(weighIn.civil);
      if (kind === 'fat') {
        if (weighIn.bodyFatPercent === null) return [];
        return [
          { date, fat: weighIn.bodyFatPercent, logId: weighIn.logId, source: weighIn.source, time },
        ];
      }
      return [
        {
          bmi: bmiOf(caller, weighIn),
          date,
          ...(weighIn.bodyFatPercent !== null && { fat: weighIn.bodyFatPercent }),
          logId: weighIn.logId,
          source: weighIn.source,
          time,
          weight: weightOf(weighIn.weightKg, caller.units),
        },
      ];
    },
  );
  return { body: { [kind]: entries } };
}

export function visibleWeighIn(caller: FitbitCaller, date: string): WeighIn | null {
  const weighIn = caller.model.weighIn(date);
  return weighIn && weighIn.utc <= caller.nowMs ? weighIn : null;
}

function bmiOf(caller: FitbitCaller, weighIn: WeighIn): number {
  const meters = caller.account.heightCm / 100;
  return round(weighIn.weightKg / (meters * meters), 2);
}

function bodyValue(
  caller: FitbitCaller,
  weighIn: WeighIn,
  resource: 'bmi' | 'fat' | 'weight',
): number {
  if (resource === 'bmi') return bmiOf(caller, weighIn);
  if (resource === 'fat') return weighIn.bodyFatPercent ?? 0;
  return weightOf(weighIn.weightKg, caller.units);
}

/** The latest measurement in the 60 days before a date (for carrying values forward). */
function lastWeighInBefore(
  caller: FitbitCaller,
  date: string,
  resource: 'bmi' | 'fat' | 'weight',
): WeighIn | null {
  for (let back = 1; back <= 60; back++) {
    const weighIn = visibleWeighIn(caller, addDays(date, -back));
    if (weighIn && (resource !== 'fat' || weighIn.bodyFatPercent !== null)) return weighIn;
  }
  return null;
}
