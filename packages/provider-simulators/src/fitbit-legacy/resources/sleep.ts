import { addDays, dayNumberOf } from '../../common/civil-time';
import type { SleepLevel, SleepSegment, SleepSession } from '../../common/wearable-model';
import { datesBetween, parseDate, parseRange } from '../dates';
import {
  type FitbitCaller,
  type FitbitResource,
  type ResourceResult,
  bad,
  localTimestamp,
} from './context';
import { parseListQuery } from './activities';

/**
 * Sleep v1.2 (facts §1.8): logs by date (with the day summary), by range (≤ 100 days) and
 * the list endpoint. Stages logs have 30-second levels deep/light/rem/wake, with wake spells
 * of 3 minutes or less in `shortData`; classic logs have asleep/restless/awake by minute.
 */

export const sleepResources: FitbitResource[] = [
  {
    version: '1.2',
    pattern: /^sleep\/list\.json$/,
    scope: 'sleep',
    handle: (caller) => sleepList(caller),
  },
  {
    version: '1.2',
    pattern: /^sleep\/date\/([^/]+)\/([^/]+)\.json$/,
    scope: 'sleep',
    handle: (caller, match) => {
      const range = parseRange(match[1] ?? '', match[2] ?? '', {
        today: caller.today,
        memberSince: caller.account.memberSince,
        periods: [],
        maxDays: 100,
      });
      if ('error' in range) return bad(range.error);
      const logs = datesBetween(range.start, range.end)
        .reverse()
        .flatMap((date) =>
          sleepsOf(caller, date)
            .reverse()
            .map((sleep) => sleepLog(caller, sleep)),
        );
      return { body: { sleep: logs } };
    },
  },
  {
    version: '1.2',
    pattern: /^sleep\/date\/([^/]+)\.json$/,
    scope: 'sleep',
    handle: (caller, match) => {
      const parsed = parseDate(match[1] ?? '', caller.today);
      if ('error' in parsed) return bad(parsed.error);
      const sleeps = sleepsOf(caller, parsed.date);
      const logs = [...sleeps].reverse().map((sleep) => sleepLog(caller, sleep));
      const stages = { deep: 0, light: 0, rem: 0, wake: 0 };
      let hasStages = false;
      for (const sleep of sleeps) {
        if (sleep.type !== 'stages') continue;
        hasStages = true;
        for (const segment of sleep.segments) {
          if (segment.level in stages)
            stages[segment.level as keyof typeof stages] += segment.seconds / 60;
        }
      }
      return {
        body: {
          sleep: logs,
          summary: {
            ...(hasStages && {
              stages: {
                deep: Math.round(stages.deep),
                light: Math.round(stages.light),
                rem: Math.round(stages.rem),
                wake: Math.round(stages.wake),
              },
            }),
            totalMinutesAsleep: logs.reduce((sum, log) => sum + log.minutesAsleep, 0),
            totalSleepRecords: logs.length,
            totalTimeInBed: logs.reduce((sum, log) => sum + log.timeInBed, 0),
          },
        },
      };
    },
  },
];

/** Synced sleeps that ended on the date, in start order. */
export function sleepsOf(caller: FitbitCaller, date: string): SleepSession[] {
  return caller.model.plan(date).sleeps.filter((sleep) => sleep.endUtc <= caller.trackerCutoff);
}

function sleepList(caller: FitbitCaller): ResourceResult {
  const list = parseListQuery(caller, 'sleep/list.json', '1.2');
  if ('failure' in list) return list.failure;
  const wanted = list.offset + list.limit + 1;
  const found: SleepSession[] = [];
  const member = dayNumberOf(caller.account.memberSince);
  const today = dayNumberOf(caller.today);
  const boundDay = dayNumberOf(list.bound.slice(0, 10));
  if (list.sort === 'asc') {
    for (let day = Math.max(member, boundDay); day <= today + 1 && found.length < wanted; day++) {
      for (const sleep of sleepsOf(caller, addDays('1970-01-01', day))) {
        if (sleep.startCivil > list.boundMs) found.push(sleep);
      }
    }
  } else {
    for (let day = Math.min(today, boundDay + 1); day >= member && found.length < wanted; day--) {
      for (const sleep of [...sleepsOf(caller, addDays('1970-01-01', day))].reverse()) {
        if (sleep.startCivil < list.boundMs) found.push(sleep);
      }
    }
  }
  return {
    body: {
      pagination: list.pagination(found.length > list.offset + list.limit),
      sleep: found
        .slice(list.offset, list.offset + list.limit)
        .map((sleep) => sleepLog(caller, sleep)),
    },
  };
}

interface SleepLog {
  minutesAsleep: number;
  timeInBed: number;
  [key: string]: unknown;
}

export function sleepLog(caller: FitbitCaller, sleep: SleepSession): SleepLog {
  const timeInBed = Math.round((sleep.endCivil - sleep.startCivil) / 60_000);
  const minutesOf = (level: SleepLevel) =>
    Math.round(
      sleep.segments.filter((s) => s.level === level).reduce((sum, s) => sum + s.seconds, 0) / 60,
    );
  const awakeLevels: SleepLevel[] = sleep.type === 'stages' ? ['wake'] : ['awake', 'restless'];
  const minutesAwake = awakeLevels.reduce((sum, level) => sum + minutesOf(level), 0);
  const minutesAsleep = timeInBed - minutesAwake;
  const isShortWake = (segment: SleepSegment) =>
    sleep.type === 'stages' && segment.level === 'wake' && segment.seconds <= 180;
  const entry = (segment: SleepSegment) => ({
    dateTime: localTimestamp(segment.startCivil),
    level: segment.level,
    seconds: segment.seconds,
  });
  // `data` is continuous: a short wake is folded into the stage around it and repeated in
  // `shortData`, as Fitbit does.
  const data: SleepSegment[] = [];
  for (const segment of sleep.segments) {
    const last = data[data.length - 1];
    if (isShortWake(segment) && last) {
      last.seconds += segment.seconds;
      continue;
    }
    if (last && last.level === segment.level) last.seconds += segment.seconds;
    else data.push({ ...segment });
  }
  const summary: Record<string, unknown> = {};
  if (sleep.type === 'stages') {
    for (const level of ['deep', 'light', 'rem', 'wake'] as const) {
      summary[level] = {
        count: sleep.segments.filter((s) => s.level === level).length,
        minutes: minutesOf(level),
        thirtyDayAvgMinutes: thirtyDayAverage(caller, sleep, level),
      };
    }
  } else {
    for (const level of ['asleep', 'awake', 'restless'] as const) {
      summary[level] = {
        count: sleep.segments.filter((s) => s.level === level).length,
        minutes: minutesOf(level),
      };
    }
  }
  return {
    dateOfSleep: sleep.wakeDate,
    duration: sleep.endCivil - sleep.startCivil,
    efficiency: Math.min(
      100,
      Math.round((minutesAsleep / timeInBed) * 100) + (sleep.type === 'stages' ? 2 : 0),
    ),
    endTime: localTimestamp(sleep.endCivil),
    infoCode: sleep.infoCode,
    isMainSleep: sleep.isMainSleep,
    levels: {
      data: data.map(entry),
      ...(sleep.type === 'stages' && { shortData: sleep.segments.filter(isShortWake).map(entry) }),
      summary,
    },
    logId: sleep.logId,
    logType: 'auto_detected',
    minutesAfterWakeup: 0,
    minutesAsleep,
    minutesAwake,
    minutesToFallAsleep: 0,
    startTime: localTimestamp(sleep.startCivil),
    timeInBed,
    type: sleep.type,
  };
}

/** Average minutes of a stage over the main sleeps of the previous 30 days. */
function thirtyDayAverage(caller: FitbitCaller, sleep: SleepSession, level: SleepLevel): number {
  let total = 0;
  let nights = 0;
  for (let back = 1; back <= 30; back++) {
    const main = caller.model
      .plan(addDays(sleep.wakeDate, -back))
      .sleeps.find((s) => s.isMainSleep && s.type === 'stages');
    if (!main) continue;
    nights++;
    total +=
      main.segments.filter((s) => s.level === level).reduce((sum, s) => sum + s.seconds, 0) / 60;
  }
  return nights ? Math.round(total / nights) : 0;
}
