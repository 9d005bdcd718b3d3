import type { FitbitResourceRequest } from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitSleepListResponseSchema,
  fitbitSleepResponseSchema,
  type FitbitSleepListResponse,
  type FitbitSleepLog,
  type FitbitSleepResponse,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import {
  bodyOf,
  instantsOfDays,
  list,
  localTime,
  logListFromGoogle,
  num,
  offsetOf,
  record,
  type FitbitFamily,
  type Json,
} from './fitbit-family';

/**
 * Sleep v1.2 (provider-apis §1.8) from Google Health sleep sessions: the logs whose local
 * wake date falls in the range, with stage levels in 30-second granularity as Google sends
 * them. Stored `sleep_stages` readings answer it when each keeps its session's Google body
 * (sync does since decision 0062's update of 2026-11-27; older rows go upstream).
 */

type SleepRequest = Extract<FitbitResourceRequest, { kind: 'sleep' }>;

const LEVELS: Record<'stages' | 'classic', Record<string, string>> = {
  stages: { AWAKE: 'wake', LIGHT: 'light', DEEP: 'deep', REM: 'rem' },
  classic: { AWAKE: 'awake', RESTLESS: 'restless', ASLEEP: 'asleep' },
};

/** A Google sleep session as a Fitbit v1.2 log. */
export function sleepLogOf(point: Json): FitbitSleepLog | null {
  const sleep = bodyOf(point, 'sleep');
  const interval = record(sleep.interval);
  if (typeof interval.startTime !== 'string' || typeof interval.endTime !== 'string') return null;
  const type = sleep.type === 'CLASSIC' ? 'classic' : 'stages';
  const levelOf = (value: unknown) => LEVELS[type][String(value)] ?? String(value).toLowerCase();
  const entryOf = (stage: Json) => ({
    dateTime: localTime(String(stage.startTime), offsetOf(stage.startUtcOffset)),
    level: levelOf(stage.type),
    seconds: Math.round(
      (Date.parse(String(stage.endTime)) - Date.parse(String(stage.startTime))) / 1000,
    ),
  });
  const byStart = (a: { dateTime: string }, b: { dateTime: string }) =>
    a.dateTime < b.dateTime ? -1 : a.dateTime > b.dateTime ? 1 : 0;
  const summary = record(sleep.summary);
  const metadata = record(sleep.metadata);
  const start = localTime(interval.startTime, offsetOf(interval.startUtcOffset));
  const end = localTime(interval.endTime, offsetOf(interval.endUtcOffset));
  const inPeriod = num(summary.minutesInSleepPeriod) ?? 0;
  const asleep = num(summary.minutesAsleep) ?? 0;
  const levelSummary: Record<string, { count: number; minutes: number }> = {};
  for (const entry of list(summary.stagesSummary)) {
    levelSummary[levelOf(entry.type)] = {
      count: num(entry.count) ?? 0,
      minutes: num(entry.minutes) ?? 0,
    };
  }
  const shortData = list(sleep.shortAwakenings).map(entryOf).sort(byStart);
  return {
    dateOfSleep: end.slice(0, 10),
    duration: Date.parse(interval.endTime) - Date.parse(interval.startTime),
    efficiency: inPeriod > 0 ? Math.round((asleep / inPeriod) * 100) : 0,
    endTime: end,
    infoCode: 0,
    isMainSleep: metadata.mainSleep === true,
    levels: {
      data: list(sleep.stages).map(entryOf).sort(byStart),
      ...(type === 'stages' && { shortData }),
      summary: levelSummary,
    },
    // Fitbit's log ids are local epoch milliseconds: the session's local start.
    logId: Date.parse(`${start}Z`),
    logType: 'auto_detected',
    minutesAfterWakeup: num(summary.minutesAfterWakeUp) ?? 0,
    minutesAsleep: asleep,
    minutesAwake: num(summary.minutesAwake) ?? 0,
    minutesToFallAsleep: num(summary.minutesToFallAsleep) ?? 0,
    startTime: start,
    timeInBed: inPeriod,
    type,
  };
}

/**
 * How long before the range's first wake instant a stored session may start (rows lie at
 * their start). Google documents no longest session; a night is well under one day, and the
 * few rows more cost nothing.
 */
const LONGEST_SESSION_MS = 7 * 86_400_000;

export const sleepFamily: FitbitFamily<SleepRequest> = {
  stored: (request) => {
    // Sync reads sessions by their wake time: it must have covered the wake instants of the
    // range's days.
    const wake = instantsOfDays(request.start, request.end);
    return {
      metricKeys: ['sleep_stages'],
      from: new Date(wake.from.getTime() - LONGEST_SESSION_MS),
      to: wake.to,
      coverage: { sleep_stages: wake },
    };
  },
  fromStore(request, readings) {
    const wake = instantsOfDays(request.start, request.end);
    const logs: (FitbitSleepLog | null)[] = [];
    for (const reading of readings) {
      if (reading.metricKey !== 'sleep_stages') continue;
      // A session that ended outside the range's days is none of its logs, whatever it holds.
      if (reading.endAt && (reading.endAt < wake.from || reading.endAt >= wake.to)) continue;
      const session = record(record(reading.valueJson).session);
      // A row stored before sync kept the session has no levels: the upstream answers.
      if (!('interval' in session)) return undefined;
      logs.push(sleepLogOf({ sleep: session }));
    }
    return sleepAnswer(request, logs);
  },
  async google(request, api) {
    // Google filters sleep on the wake time (facts §5): the local end date is Fitbit's dateOfSleep.
    const points = await api.listCivil(
      'sleep',
      'interval.civil_end_time',
      request.start,
      request.end,
      25,
    );
    return sleepAnswer(request, points.map(sleepLogOf));
  },
  legacyPath: (request) =>
    request.single
      ? `/1.2/user/-/sleep/date/${request.start}.json`
      : `/1.2/user/-/sleep/date/${request.start}/${request.end}.json`,
  legacySchema: fitbitSleepResponseSchema,
  isEmpty: (answer) => (answer as FitbitSleepResponse).sleep.length === 0,
};

/**
 * The answer from the sessions' logs, whoever held them: the logs whose wake date is in the
 * range, newest first, and for the one-date path the day's `summary`.
 */
function sleepAnswer(
  request: SleepRequest,
  candidates: readonly (FitbitSleepLog | null)[],
): FitbitSleepResponse {
  const logs = candidates
    .filter(
      (log): log is FitbitSleepLog =>
        log !== null && log.dateOfSleep >= request.start && log.dateOfSleep <= request.end,
    )
    .sort((a, b) => (a.startTime < b.startTime ? 1 : a.startTime > b.startTime ? -1 : 0));
  const answer: FitbitSleepResponse = { sleep: logs };
  if (request.single) {
    const stages: Record<string, number> = { deep: 0, light: 0, rem: 0, wake: 0 };
    for (const log of logs) {
      if (log.type !== 'stages') continue;
      for (const key of Object.keys(stages)) stages[key]! += log.levels.summary[key]?.minutes ?? 0;
    }
    answer.summary = {
      stages,
      totalMinutesAsleep: logs.reduce((sum, log) => sum + log.minutesAsleep, 0),
      totalSleepRecords: logs.length,
      totalTimeInBed: logs.reduce((sum, log) => sum + log.timeInBed, 0),
    };
  }
  return answer;
}

type SleepList = Extract<FitbitResourceRequest, { kind: 'sleep-list' }>;

/**
 * `sleep/list.json` (v1.2): the `limit` sleep logs whose wake time is before a date (newest
 * first) or from a date on (oldest first), as the activity log list (decision 0063); `next`
 * is left empty (one page per request). Live only: a list before or after a date has no
 * end the sync's coverage could be checked against (decision 0062).
 */
export const sleepListFamily: FitbitFamily<SleepList> = {
  async google(request, api) {
    const { logs, pagination } = await logListFromGoogle(request, api, {
      dataType: 'sleep',
      member: 'sleep.interval.civil_end_time',
      toLog: sleepLogOf,
    });
    const answer: FitbitSleepListResponse = { sleep: logs, pagination };
    return answer;
  },
  legacyPath: (request) =>
    `/1.2/user/-/sleep/list.json?${request.beforeDate ? `beforeDate=${request.beforeDate}` : `afterDate=${request.afterDate}`}&sort=${request.sort}&offset=0&limit=${request.limit}`,
  legacySchema: fitbitSleepListResponseSchema,
  isEmpty: (answer) => (answer as FitbitSleepListResponse).sleep.length === 0,
};
