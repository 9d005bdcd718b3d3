import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  FITBIT_DATA_MESSAGES,
  FITBIT_DATA_REASONS,
  datesBetween,
} from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  fitbitActivityIntradayResponseSchema,
  fitbitActivityLogListResponseSchema,
  fitbitActivitySeriesResponseSchema,
  fitbitCardioScoreResponseSchema,
  fitbitFatResponseSchema,
  fitbitFoodLogResponseSchema,
  fitbitFoodSeriesResponseSchema,
  fitbitHeartIntradayResponseSchema,
  fitbitHeartSeriesResponseSchema,
  fitbitOverviewResponseSchema,
  fitbitSleepListResponseSchema,
  fitbitSleepResponseSchema,
  fitbitSpo2ResponseSchema,
  fitbitWeightResponseSchema,
} from '@trialpulse/shared/device-data/fitbit-shapes';
import { sql } from 'drizzle-orm';
import type { ZodType } from 'zod';
import { syncCursors } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { decryptSecret } from '../../lib/crypto';
import { type AllSimulators } from '@trialpulse/provider-simulators';
import { type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import {
  clearFaults,
  control,
  countRequests,
  injectFault,
} from '../../modules/devices/core/test-support';
import { connectionRow, linkAsStaff } from '../../modules/devices/test-support';
import { addParticipant, createTrial } from '../../modules/participants/test-support';
import { GOOGLE_HEALTH_STREAMS } from '../google-health/google-health.source';
import type { SourceRequest } from '../../modules/sync/sources/types';
import { readingsServiceFor } from '../../modules/sync/test-support';
import { signIn } from '../../modules/trials/test-support';
import {
  FITBIT_TESTS_NOW,
  fitbitDataPath,
  linkLegacyFitbit,
  startFitbitDataApp,
} from './test-support';

/**
 * Every resource path of the Fitbit data page (device-data spec §7) end to end: the app
 * (inject) reads from the Google Health and legacy Fitbit simulators over HTTP through its
 * real clients, and from readings stored by the real sync source (decision 0062).
 */
let sims: AllSimulators;
let ctx: TestApp;
const clock = createManualClock(FITBIT_TESTS_NOW);
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
let user: TestClient;
let trialId: number;
let counter = 0;

const START = '2026-11-01';
const END = '2026-11-07';
const DAY = '2026-11-03';

type Json = Record<string, unknown>;
type P = { id: number; email: string };

beforeAll(async () => {
  ({ sims, ctx, teamId, admin, user, trialId } = await startFitbitDataApp(clock));
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

beforeEach(async () => {
  for (const sim of [sims.googleHealth, sims.fitbitLegacy]) {
    await clearFaults(sim.baseUrl);
    // Every participant is the same simulated person: the legacy quota (150 calls an hour,
    // on a clock that stands still) would otherwise run out part-way through the file.
    await control(sim.baseUrl, 'POST', '/rate-limits/reset');
  }
});

async function newParticipant(trial = trialId): Promise<P> {
  const email = `fitbit-resources-${process.pid}-${++counter}@study.example.org`;
  return { id: (await addParticipant(admin, { trialId: trial, email })).participantId, email };
}

async function googleParticipant(trial = trialId): Promise<P> {
  const participant = await newParticipant(trial);
  const linked = await linkAsStaff(
    admin,
    participant.id,
    'Fitbit',
    {},
    { email: participant.email },
  );
  expect(linked.statusCode, linked.body).toBe(200);
  clock.advance(1000);
  return participant;
}

async function legacyParticipant(): Promise<P> {
  const participant = await newParticipant();
  await linkLegacyFitbit(ctx, clock, { teamId, participantId: participant.id });
  return participant;
}

async function accessTokenOf(participantId: number) {
  const [row] = await connectionRow(db(), participantId);
  return decryptSecret(row!.accessTokenEncrypted!, ctx.config.TOKEN_ENCRYPTION_KEY);
}

const dataPath = fitbitDataPath;

/** One call to the Google Health simulator with the participant's own token (what it holds). */
async function google(token: string, request: SourceRequest): Promise<Json> {
  const url = new URL(`${sims.googleHealth.baseUrl}/v4${request.path}`);
  for (const [name, value] of Object.entries(request.query ?? {}))
    if (value !== undefined) url.searchParams.set(name, value);
  const response = await fetch(url, {
    method: request.method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(request.json !== undefined && { 'content-type': 'application/json' }),
    },
    ...(request.json !== undefined && { body: JSON.stringify(request.json) }),
  });
  expect(response.status, url.pathname).toBe(200);
  return (await response.json()) as Json;
}

/**
 * Every point of a list, all pages. Several cases ask the same list of the same account (the
 * four heart intraday paths read one day of second-level samples, 9 pages of 10,000): the
 * simulator's answer for an account is the same each time (its clock stands still), so each
 * list is fetched once per token.
 */
const heldLists = new Map<string, Promise<Json[]>>();
function held(token: string, dataType: string, filter: string): Promise<Json[]> {
  const key = JSON.stringify([token, dataType, filter]);
  let list = heldLists.get(key);
  if (!list) {
    list = fetchHeld(token, dataType, filter);
    heldLists.set(key, list);
  }
  return list;
}

async function fetchHeld(token: string, dataType: string, filter: string): Promise<Json[]> {
  const points: Json[] = [];
  let pageToken: string | undefined;
  do {
    const page = await google(token, {
      method: 'GET',
      path: `/users/me/dataTypes/${dataType}/dataPoints`,
      query: { filter, pageSize: '10000', pageToken },
    });
    points.push(...((page.dataPoints as Json[] | undefined) ?? []));
    pageToken = (page.nextPageToken as string | undefined) || undefined;
  } while (pageToken);
  return points.map(
    (point) =>
      point[Object.keys(point).find((key) => key !== 'name' && key !== 'dataSource')!] as Json,
  );
}

const civil = (type: string, member: string, start: string, endExclusive: string) =>
  `${type}.${member} >= "${start}T00:00:00" AND ${type}.${member} < "${endExclusive}T00:00:00"`;
const daily = (type: string, start: string, endExclusive: string) =>
  `${type}.date >= "${start}" AND ${type}.date < "${endExclusive}"`;
const dateOf = (value: unknown) => {
  const { year, month, day } = value as { year: number; month: number; day: number };
  return `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
};

/** The overview's parts and the path answering each alone. */
const OVERVIEW_PARTS: Record<string, string> = {
  'activities-steps': `activities/steps/date/${START}/${END}.json`,
  'activities-distance': `activities/distance/date/${START}/${END}.json`,
  'activities-floors': `activities/floors/date/${START}/${END}.json`,
  'activities-heart': `activities/heart/date/${START}/${END}.json`,
  sleep: `sleep/date/${START}/${END}.json`,
  weight: `body/log/weight/date/${START}/${END}.json`,
};
/** The participant the Google cases read (the overview check asks the parts for the same one). */
let overviewParticipant: P | undefined;

type Case = {
  name: string;
  path: string;
  schema: ZodType;
  /** The same request as the legacy API takes it, when the page's path differs (null: no such path). */
  legacyPath?: string | null;
  /** A path of the same family over days without data. */
  empty: string;
  /** Compares the answer with what the Google Health simulator holds. */
  check: (answer: Json & unknown[], token: string) => Promise<void>;
};

const pad = (n: number | undefined) => String(n ?? 0).padStart(2, '0');

/**
 * An activity-minutes series (the page's active-minutes and sedentary queries): each day's
 * minutes are the simulator's own activity-level intervals of that Google level, summed per
 * civil day (its list points, not the rollup the server reads).
 */
function activityMinutesCase(spec: {
  name: string;
  resource: string;
  tracker: boolean;
  level: 'SEDENTARY' | 'LIGHTLY_ACTIVE' | 'MODERATELY_ACTIVE' | 'VERY_ACTIVE';
  path?: string;
  legacyPath?: string;
  empty?: string;
}): Case {
  const family = `activities/${spec.tracker ? 'tracker/' : ''}${spec.resource}`;
  return {
    name: spec.name,
    path: spec.path ?? `${family}/date/${START}/${END}.json`,
    ...(spec.legacyPath !== undefined && { legacyPath: spec.legacyPath }),
    schema: fitbitActivitySeriesResponseSchema,
    empty: spec.empty ?? `${family}/date/2030-01-01/2030-01-07.json`,
    async check(answer, token) {
      const intervals = await held(
        token,
        'activity-level',
        civil('activity_level', 'interval.civil_start_time', START, '2026-11-08'),
      );
      const minutes = new Map<string, number>();
      for (const point of intervals) {
        if (point.activityLevelType !== spec.level) continue;
        const interval = point.interval as Json;
        const date = dateOf((interval.civilStartTime as Json).date);
        const length =
          (Date.parse(String(interval.endTime)) - Date.parse(String(interval.startTime))) / 60_000;
        minutes.set(date, (minutes.get(date) ?? 0) + length);
      }
      expect([...minutes.values()].some((value) => value > 0)).toBe(true);
      expect(answer).toEqual({
        [`activities-${spec.tracker ? 'tracker-' : ''}${spec.resource}`]: datesBetween(
          START,
          END,
        ).map((dateTime) => ({ dateTime, value: String(minutes.get(dateTime) ?? 0) })),
      });
    },
  };
}

const GOOGLE_CASES: Case[] = [
  {
    name: 'heart series',
    path: `activities/heart/date/${START}/${END}.json`,
    schema: fitbitHeartSeriesResponseSchema,
    empty: 'activities/heart/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const resting = new Map(
        (
          await held(
            token,
            'daily-resting-heart-rate',
            daily('daily_resting_heart_rate', START, '2026-11-08'),
          )
        ).map((p) => [dateOf(p.date), Number(p.beatsPerMinute)]),
      );
      const zones = new Map(
        (
          await held(
            token,
            'daily-heart-rate-zones',
            daily('daily_heart_rate_zones', START, '2026-11-08'),
          )
        ).map((p) => [dateOf(p.date), p.heartRateZones as Json[]]),
      );
      const days = answer['activities-heart'] as Array<{
        dateTime: string;
        value: { restingHeartRate?: number; heartRateZones: Array<{ name: string; min: number }> };
      }>;
      expect(days.map((day) => day.dateTime)).toEqual(datesBetween(START, END));
      expect(resting.size).toBeGreaterThan(0);
      // Most days have zones upstream (a day the tracker was not worn has none, and no zones
      // in the answer either): the loop below cannot pass by checking nothing.
      expect(zones.size).toBeGreaterThanOrEqual(days.length - 2);
      const minOf = (bounds: Json[], type: string) =>
        Number(bounds.find((zone) => zone.heartRateZoneType === type)!.minBeatsPerMinute);
      for (const day of days) {
        expect(day.value.restingHeartRate).toBe(resting.get(day.dateTime));
        const bounds = zones.get(day.dateTime);
        if (!bounds) {
          expect(day.value.heartRateZones, day.dateTime).toEqual([]);
          continue;
        }
        expect(day.value.heartRateZones.map((zone) => zone.name)).toEqual([
          'Out of Range',
          'Fat Burn',
          'Cardio',
          'Peak',
        ]);
        expect(day.value.heartRateZones.slice(1).map((zone) => zone.min)).toEqual([
          minOf(bounds, 'MODERATE'),
          minOf(bounds, 'VIGOROUS'),
          minOf(bounds, 'PEAK'),
        ]);
      }
    },
  },
  {
    name: 'heart intraday 1sec',
    path: `activities/heart/date/${DAY}/1d/1sec.json`,
    schema: fitbitHeartIntradayResponseSchema,
    empty: 'activities/heart/date/2030-01-01/1d/1sec.json',
    async check(answer, token) {
      const samples = await held(
        token,
        'heart-rate',
        civil('heart_rate', 'sample_time.civil_time', DAY, '2026-11-04'),
      );
      const dataset = answer['activities-heart-intraday'] as {
        dataset: Array<{ time: string; value: number }>;
        datasetType: string;
      };
      expect(dataset.datasetType).toBe('second');
      expect(dataset.dataset).toHaveLength(samples.length);
      const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
      expect(sum(dataset.dataset.map((entry) => entry.value))).toBe(
        sum(samples.map((sample) => Number(sample.beatsPerMinute))),
      );
    },
  },
  {
    name: 'heart intraday 1min with a time window',
    path: `activities/heart/date/${DAY}/1d/1min/time/08:00/11:59.json`,
    schema: fitbitHeartIntradayResponseSchema,
    empty: 'activities/heart/date/2030-01-01/1d/1min.json',
    async check(answer, token) {
      const samples = await held(
        token,
        'heart-rate',
        civil('heart_rate', 'sample_time.civil_time', DAY, '2026-11-04'),
      );
      const nine = samples.filter((sample) => {
        const time = (
          sample.sampleTime as { civilTime: { time: { hours?: number; minutes?: number } } }
        ).civilTime.time;
        return (time.hours ?? 0) === 9 && (time.minutes ?? 0) === 0;
      });
      const dataset = (
        answer['activities-heart-intraday'] as { dataset: Array<{ time: string; value: number }> }
      ).dataset;
      expect(dataset.every((entry) => entry.time >= '08:00:00' && entry.time <= '11:59:00')).toBe(
        true,
      );
      expect(nine.length).toBeGreaterThan(0);
      const mean = Math.round(
        nine.reduce((sum, sample) => sum + Number(sample.beatsPerMinute), 0) / nine.length,
      );
      expect(dataset.find((entry) => entry.time === '09:00:00')?.value).toBe(mean);
    },
  },
  ...(['5min', '15min'] as const).map((detail): Case => ({
    name: `heart intraday ${detail}${detail === '15min' ? ' with a time window' : ''}`,
    path: `activities/heart/date/${DAY}/1d/${detail}${detail === '15min' ? '/time/06:10/18:44' : ''}.json`,
    schema: fitbitHeartIntradayResponseSchema,
    empty: `activities/heart/date/2030-01-01/1d/${detail}.json`,
    async check(answer, token) {
      const step = detail === '5min' ? 5 : 15;
      const window = detail === '15min' ? ['06:10:00', '18:44:59'] : ['00:00:00', '23:59:59'];
      const samples = (
        await held(
          token,
          'heart-rate',
          civil('heart_rate', 'sample_time.civil_time', DAY, '2026-11-04'),
        )
      )
        .map((sample) => {
          const time = (
            sample.sampleTime as {
              civilTime: { time: { hours?: number; minutes?: number; seconds?: number } };
            }
          ).civilTime.time;
          return {
            time: `${pad(time.hours)}:${pad(time.minutes)}:${pad(time.seconds)}`,
            bucket: `${pad(time.hours)}:${pad((time.minutes ?? 0) - ((time.minutes ?? 0) % step))}:00`,
            bpm: Number(sample.beatsPerMinute),
          };
        })
        .filter((sample) => sample.time >= window[0]! && sample.time <= window[1]!);
      const buckets = new Map<string, number[]>();
      for (const sample of samples) {
        const values = buckets.get(sample.bucket);
        if (values) values.push(sample.bpm);
        else buckets.set(sample.bucket, [sample.bpm]);
      }
      const expected = [...buckets]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([time, values]) => ({
          time,
          value: Math.round(values.reduce((a, b) => a + b, 0) / values.length),
        }));
      const intraday = answer['activities-heart-intraday'] as {
        dataset: Array<{ time: string; value: number }>;
        datasetInterval: number;
        datasetType: string;
      };
      expect(intraday.datasetInterval).toBe(step);
      expect(intraday.datasetType).toBe('minute');
      expect(expected.length).toBeGreaterThan(10);
      expect(intraday.dataset).toEqual(expected);
    },
  })),
  ...(
    [
      { subject: 'beforeDate', date: END, sort: 'desc', limit: 3 },
      { subject: 'afterDate', date: START, sort: 'asc', limit: 2 },
    ] as const
  ).map(({ subject, date, sort, limit }): Case => ({
    name: `sleep log list ${subject} (${sort}, limit ${limit})`,
    path: `sleep/list.json?${subject}=${date}&sort=${sort}&offset=0&limit=${limit}`,
    schema: fitbitSleepListResponseSchema,
    empty:
      subject === 'beforeDate'
        ? 'sleep/list.json?beforeDate=2020-01-01&sort=desc&offset=0&limit=3'
        : 'sleep/list.json?afterDate=2030-01-01&sort=asc&offset=0&limit=3',
    async check(answer, token) {
      const member = 'sleep.interval.civil_end_time';
      const sessions = (
        await held(
          token,
          'sleep',
          subject === 'beforeDate'
            ? `${member} < "${date}T00:00:00"`
            : `${member} >= "${date}T00:00:00"`,
        )
      )
        .map((s) => ({
          start: Date.parse(String((s.interval as Json).startTime)),
          minutesAsleep: Number((s.summary as Json).minutesAsleep),
        }))
        .sort((a, b) => (sort === 'asc' ? a.start - b.start : b.start - a.start))
        .slice(0, limit);
      expect(sessions).toHaveLength(limit);
      const logs = answer.sleep as Array<{
        minutesAsleep: number;
        duration: number;
        startTime: string;
        levels: { data: unknown[] };
      }>;
      expect(logs.map((log) => log.minutesAsleep)).toEqual(sessions.map((s) => s.minutesAsleep));
      expect(logs.every((log) => log.levels.data.length > 0)).toBe(true);
      expect(answer.pagination).toMatchObject({ [subject]: date, limit, offset: 0, sort });
    },
  })),
  {
    name: 'body weight logs',
    path: `body/log/weight/date/${END}/30d.json`,
    schema: fitbitWeightResponseSchema,
    empty: 'body/log/weight/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const weights = await held(
        token,
        'weight',
        civil('weight', 'sample_time.civil_time', '2026-10-09', '2026-11-08'),
      );
      const logs = answer.weight as Array<{ weight: number; date: string; time: string }>;
      expect(logs.map((log) => log.weight).sort()).toEqual(
        weights.map((w) => Math.round(Number(w.weightGrams) / 10) / 100).sort(),
      );
    },
  },
  {
    name: 'body fat logs',
    path: `body/log/fat/date/${END}/30d.json`,
    schema: fitbitFatResponseSchema,
    empty: 'body/log/fat/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const fats = await held(
        token,
        'body-fat',
        civil('body_fat', 'sample_time.civil_time', '2026-10-09', '2026-11-08'),
      );
      expect((answer.fat as Array<{ fat: number }>).map((log) => log.fat).sort()).toEqual(
        fats.map((f) => Math.round(Number(f.percentage) * 100) / 100).sort(),
      );
    },
  },
  {
    name: 'sleep by range',
    path: `sleep/date/${START}/${END}.json`,
    schema: fitbitSleepResponseSchema,
    empty: 'sleep/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const sessions = await held(
        token,
        'sleep',
        civil('sleep', 'interval.civil_end_time', START, '2026-11-08'),
      );
      const logs = answer.sleep as Array<{
        minutesAsleep: number;
        type: string;
        levels: { data: unknown[]; summary: Json };
      }>;
      expect(logs).toHaveLength(sessions.length);
      expect(logs.map((log) => log.minutesAsleep).sort()).toEqual(
        sessions.map((s) => Number((s.summary as Json).minutesAsleep)).sort(),
      );
      const staged = logs.filter((log) => log.type === 'stages');
      expect(staged.length).toBeGreaterThan(0);
      for (const log of staged)
        expect(Object.keys(log.levels.summary).sort()).toEqual(['deep', 'light', 'rem', 'wake']);
      expect(answer.summary).toBeUndefined();
    },
  },
  {
    name: 'sleep of one date with its summary',
    path: `sleep/date/${DAY}.json`,
    schema: fitbitSleepResponseSchema,
    empty: 'sleep/date/2030-01-01.json',
    async check(answer, token) {
      const sessions = await held(
        token,
        'sleep',
        civil('sleep', 'interval.civil_end_time', DAY, '2026-11-04'),
      );
      expect((answer.summary as Json).totalSleepRecords).toBe(sessions.length);
      expect(
        (answer.sleep as Array<{ dateOfSleep: string }>).every((log) => log.dateOfSleep === DAY),
      ).toBe(true);
    },
  },
  {
    name: 'SpO2',
    path: `spo2/date/${START}/${END}.json`,
    schema: fitbitSpo2ResponseSchema,
    empty: 'spo2/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const nights = await held(
        token,
        'daily-oxygen-saturation',
        daily('daily_oxygen_saturation', START, '2026-11-08'),
      );
      expect(answer).toEqual(
        nights
          .map((n) => ({
            dateTime: dateOf(n.date),
            value: {
              avg: n.averagePercentage,
              min: n.lowerBoundPercentage,
              max: n.upperBoundPercentage,
            },
          }))
          .sort((a, b) => (a.dateTime < b.dateTime ? -1 : 1)),
      );
    },
  },
  {
    name: 'cardio fitness score',
    path: `cardioscore/date/${END}/30d.json`,
    // The legacy API has no periods for cardio fitness: the server asks for the range.
    legacyPath: `cardioscore/date/2026-10-09/${END}.json`,
    schema: fitbitCardioScoreResponseSchema,
    empty: 'cardioscore/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const days = await held(
        token,
        'daily-vo2-max',
        daily('daily_vo2_max', '2026-10-09', '2026-11-08'),
      );
      expect(
        (answer.cardioScore as Array<{ value: { vo2Max: string } }>)
          .map((d) => d.value.vo2Max)
          .sort(),
      ).toEqual(days.map((d) => String(Math.round(Number(d.vo2Max)))).sort());
    },
  },
  {
    name: 'foods log of a day',
    path: `foods/log/date/${DAY}.json`,
    schema: fitbitFoodLogResponseSchema,
    empty: 'foods/log/date/2030-01-01.json',
    async check(answer, token) {
      const foods = await held(
        token,
        'nutrition-log',
        civil('nutrition_log', 'interval.civil_start_time', DAY, '2026-11-04'),
      );
      expect((answer.foods as unknown[]).length).toBe(foods.length);
      expect((answer.summary as Json).calories).toBeCloseTo(
        foods.reduce((sum, f) => sum + Number((f.energy as Json).kcal), 0),
        3,
      );
    },
  },
  {
    name: 'foods caloriesIn series',
    path: `foods/log/caloriesIn/date/${START}/${END}.json`,
    schema: fitbitFoodSeriesResponseSchema,
    empty: 'foods/log/caloriesIn/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      const foods = await held(
        token,
        'nutrition-log',
        civil('nutrition_log', 'interval.civil_start_time', START, '2026-11-08'),
      );
      const total = (answer['foods-log-caloriesIn'] as Array<{ value: string }>).reduce(
        (sum, d) => sum + Number(d.value),
        0,
      );
      expect(
        Math.abs(total - foods.reduce((sum, f) => sum + Number((f.energy as Json).kcal), 0)),
      ).toBeLessThanOrEqual(7);
    },
  },
  {
    name: 'foods water series',
    path: `foods/log/water/date/${START}/${END}.json`,
    schema: fitbitFoodSeriesResponseSchema,
    empty: 'foods/log/water/date/2030-01-01/2030-01-07.json',
    async check(answer, token) {
      // The simulator's own water logs (not its rollup), summed per civil day in mL.
      const logs = await held(
        token,
        'hydration-log',
        civil('hydration_log', 'interval.civil_start_time', START, '2026-11-08'),
      );
      const byDate = new Map<string, number>();
      for (const log of logs) {
        const date = dateOf(((log.interval as Json).civilStartTime as Json).date);
        byDate.set(
          date,
          (byDate.get(date) ?? 0) + Number((log.amountConsumed as Json).milliliters),
        );
      }
      expect(byDate.size).toBeGreaterThan(0);
      expect(answer).toEqual({
        'foods-log-water': datesBetween(START, END).map((dateTime) => ({
          dateTime,
          value: (byDate.get(dateTime) ?? 0).toFixed(1),
        })),
      });
    },
  },
  {
    name: 'activity log list',
    path: `activities/list.json?beforeDate=${END}&sort=desc&offset=0&limit=3`,
    schema: fitbitActivityLogListResponseSchema,
    empty: 'activities/list.json?beforeDate=2020-01-01&sort=desc&offset=0&limit=3',
    async check(answer, token) {
      const sessions = await held(
        token,
        'exercise',
        `exercise.interval.civil_start_time < "${END}T00:00:00"`,
      );
      const logs = answer.activities as Array<{ activityName: string; startTime: string }>;
      expect(logs).toHaveLength(Math.min(3, sessions.length));
      expect(logs.map((log) => log.activityName)).toEqual(
        sessions.slice(0, 3).map((s) => s.displayName),
      );
      expect(logs[0]!.startTime).toMatch(
        /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000[+-]\d{2}:\d{2}$/,
      );
    },
  },
  activityMinutesCase({
    name: 'tracker very-active minutes (end date first)',
    resource: 'minutesVeryActive',
    tracker: true,
    level: 'VERY_ACTIVE',
    path: `activities/tracker/minutesVeryActive/date/${END}/${START}.json`,
    // The legacy API takes ranges start first.
    legacyPath: `activities/tracker/minutesVeryActive/date/${START}/${END}.json`,
    empty: 'activities/tracker/minutesVeryActive/date/2030-01-07/2030-01-01.json',
  }),
  // The page's active-minutes query asks the three tracker series start first.
  activityMinutesCase({
    name: 'tracker lightly active minutes',
    resource: 'minutesLightlyActive',
    tracker: true,
    level: 'LIGHTLY_ACTIVE',
  }),
  activityMinutesCase({
    name: 'tracker fairly active minutes',
    resource: 'minutesFairlyActive',
    tracker: true,
    // Fitbit's "fairly active" is Google Health's moderately active level.
    level: 'MODERATELY_ACTIVE',
  }),
  activityMinutesCase({
    name: 'sedentary minutes',
    resource: 'minutesSedentary',
    tracker: false,
    level: 'SEDENTARY',
  }),
  {
    name: 'steps intraday 1min (the one-day page)',
    path: `activities/steps/date/${DAY}/1d/1min.json`,
    schema: fitbitActivityIntradayResponseSchema,
    empty: 'activities/steps/date/2030-01-01/1d/1min.json',
    async check(answer, token) {
      // The simulator's own minute points (not its rollup), by civil start minute.
      const minutes = await held(
        token,
        'steps',
        civil('steps', 'interval.civil_start_time', DAY, '2026-11-04'),
      );
      const byTime = new Map<string, number>();
      for (const point of minutes) {
        const { hours, minutes: minute } = (
          (point.interval as Json).civilStartTime as { time: { hours?: number; minutes?: number } }
        ).time;
        const time = `${pad(hours)}:${pad(minute)}:00`;
        byTime.set(time, (byTime.get(time) ?? 0) + Number(point.count));
      }
      expect(byTime.size).toBeGreaterThan(60);
      const intraday = answer['activities-steps-intraday'] as {
        dataset: Array<{ time: string; value: number }>;
        datasetInterval: number;
        datasetType: string;
      };
      expect(intraday.datasetInterval).toBe(1);
      expect(intraday.datasetType).toBe('minute');
      expect(intraday.dataset).toEqual(
        Array.from({ length: 1440 }, (_, index) => {
          const time = `${pad(Math.floor(index / 60))}:${pad(index % 60)}:00`;
          return { time, value: byTime.get(time) ?? 0 };
        }),
      );
      const total = [...byTime.values()].reduce((sum, value) => sum + value, 0);
      expect(answer['activities-steps']).toEqual([{ dateTime: DAY, value: String(total) }]);
    },
  },
  {
    name: 'steps intraday 15min',
    path: `activities/steps/date/${DAY}/1d/15min.json`,
    schema: fitbitActivityIntradayResponseSchema,
    empty: 'activities/steps/date/2030-01-01/1d/15min.json',
    async check(answer, token) {
      const rollup = await google(token, {
        method: 'POST',
        path: '/users/me/dataTypes/steps/dataPoints:dailyRollUp',
        json: {
          range: {
            start: { date: { year: 2026, month: 11, day: 3 } },
            end: { date: { year: 2026, month: 11, day: 4 } },
          },
        },
      });
      const total = Number(((rollup.rollupDataPoints as Json[])[0]!.steps as Json).countSum);
      const intraday = answer['activities-steps-intraday'] as {
        dataset: Array<{ value: number }>;
        datasetInterval: number;
      };
      expect(intraday.datasetInterval).toBe(15);
      expect(intraday.dataset).toHaveLength(96);
      expect(intraday.dataset.reduce((sum, entry) => sum + entry.value, 0)).toBe(total);
      expect(answer['activities-steps']).toEqual([{ dateTime: DAY, value: String(total) }]);
    },
  },
  {
    name: 'overview',
    path: `overview/date/${START}/${END}.json`,
    legacyPath: null,
    schema: fitbitOverviewResponseSchema,
    empty: 'overview/date/2030-01-01/2030-01-07.json',
    async check(answer) {
      // Each part is what its own path answers (whose values the cases above check).
      expect(Object.keys(answer).sort()).toEqual(Object.keys(OVERVIEW_PARTS).sort());
      for (const [key, path] of Object.entries(OVERVIEW_PARTS)) {
        const part = await user.get(dataPath(overviewParticipant!, path));
        expect(part.statusCode, path).toBe(200);
        expect(answer[key], key).toEqual(part.json()[key]);
      }
    },
  },
];

describe('every resource path from Google Health', () => {
  let participant: P;
  beforeAll(async () => {
    participant = await googleParticipant();
    overviewParticipant = participant;
  });

  it.each(GOOGLE_CASES)(
    '$name: the legacy shape with the simulator values',
    async ({ path, schema, check }) => {
      const response = await user.get(dataPath(participant, path));
      expect(response.statusCode, response.body).toBe(200);
      const answer = response.json();
      // Parsed once: the message argument is evaluated whether the check fails or not.
      const parsed = schema.safeParse(answer);
      expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
      await check(answer, await accessTokenOf(participant.id));
    },
  );

  it.each(GOOGLE_CASES)(
    "$name: 'Could not find any data!' for days without data",
    async ({ empty }) => {
      await expectNoData(participant, empty);
    },
  );

  it.each(GOOGLE_CASES)(
    "$name: an expired token is refreshed once; 429 answers 'Too Many Requests'",
    async ({ path }) => {
      await expectRefreshOnceThenTooManyRequests('google', await googleParticipant(), path);
    },
  );

  it('activity intraday of floors and calories is refused for Google Health (rollups only)', async () => {
    const response = await user.get(
      dataPath(participant, `activities/floors/date/${DAY}/1d/1min.json`),
    );
    expect(response.statusCode).toBe(400);
    expect(response.json().message).toBe(FITBIT_DATA_MESSAGES.badRequest);
  });
});

describe('every resource path from the legacy Fitbit Web API', () => {
  let participant: P;
  beforeAll(async () => {
    participant = await legacyParticipant();
  });

  it.each(GOOGLE_CASES.filter((c) => c.legacyPath !== null))(
    '$name: exactly what the legacy simulator answers',
    async ({ path, legacyPath, schema }) => {
      const response = await user.get(dataPath(participant, path));
      expect(response.statusCode, response.body).toBe(200);
      expect(schema.safeParse(response.json()).success).toBe(true);
      const upstreamPath = legacyPath ?? path;
      const version = path.startsWith('sleep/') ? '1.2' : '1';
      const direct = await fetch(`${sims.fitbitLegacy.baseUrl}/${version}/user/-/${upstreamPath}`, {
        headers: { authorization: `Bearer ${await accessTokenOf(participant.id)}` },
      });
      expect(direct.status).toBe(200);
      expect(response.json()).toEqual(await direct.json());
    },
  );

  it('overview: the parts exactly as the legacy simulator answers them', async () => {
    const response = await user.get(dataPath(participant, `overview/date/${START}/${END}.json`));
    expect(response.statusCode, response.body).toBe(200);
    const token = await accessTokenOf(participant.id);
    for (const [key, path] of Object.entries(OVERVIEW_PARTS)) {
      const version = path.startsWith('sleep/') ? '1.2' : '1';
      const direct = await fetch(`${sims.fitbitLegacy.baseUrl}/${version}/user/-/${path}`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(direct.status, path).toBe(200);
      expect(response.json()[key], key).toEqual(((await direct.json()) as Json)[key]);
    }
  });

  it.each(GOOGLE_CASES)(
    "$name: 'Could not find any data!' for days without data",
    async ({ empty }) => {
      await expectNoData(participant, empty);
    },
  );

  it("days before the account's first day answer 'Could not find any data!'", async () => {
    await expectNoData(participant, 'sleep/date/2020-01-01/2020-01-07.json');
    await expectNoData(participant, 'activities/steps/date/2020-01-01/2020-01-07.json');
  });

  it.each(GOOGLE_CASES)(
    "$name: an expired token is refreshed once; 429 answers 'Too Many Requests'",
    async ({ path }) => {
      await expectRefreshOnceThenTooManyRequests('legacy', await legacyParticipant(), path);
    },
  );
});

/** The path answers 404 'Could not find any data!' (reason NO_DATA). */
async function expectNoData(participant: P, path: string) {
  const response = await user.get(dataPath(participant, path));
  expect(response.statusCode, `${path}: ${response.body}`).toBe(404);
  expect(response.json()).toMatchObject({
    message: FITBIT_DATA_MESSAGES.noData,
    reason: FITBIT_DATA_REASONS.noData,
  });
}

/**
 * With the upstream's access token expired, the call refreshes it once (one token call) and
 * succeeds; with the upstream answering 429, the call answers 429 'Too Many Requests'.
 */
async function expectRefreshOnceThenTooManyRequests(
  upstream: 'google' | 'legacy',
  participant: P,
  path: string,
) {
  const [sim, tokenPath] =
    upstream === 'google' ? [sims.googleHealth, '/token'] : [sims.fitbitLegacy, '/oauth2/token'];
  await injectFault(sim.baseUrl, { kind: 'expired-token', target: 'api' });
  const tokenCalls = countRequests(sim, tokenPath);
  try {
    const response = await user.get(dataPath(participant, path));
    expect(response.statusCode, response.body).toBe(200);
    expect(tokenCalls.count).toBe(1);
  } finally {
    tokenCalls.stop();
  }
  await injectFault(sim.baseUrl, { kind: 'rate-limit', target: 'api', times: 'always' });
  const limited = await user.get(dataPath(participant, path));
  expect(limited.statusCode).toBe(429);
  expect(limited.json()).toMatchObject({
    message: FITBIT_DATA_MESSAGES.tooManyRequests,
    displayToUser: true,
  });
}

/** Runs the real Google Health sync streams for the participant over [from, to) and marks them synced. */
async function syncInto(participant: P, streamKeys: string[], from: Date, to: Date) {
  const token = await accessTokenOf(participant.id);
  const [row] = await connectionRow(db(), participant.id);
  const fetchContext = {
    request: (request: SourceRequest) => google(token, request),
    now: clock.now(),
    memo: new Map(),
    syncedUntil: null,
    markIncomplete: () => undefined,
  };
  for (const stream of GOOGLE_HEALTH_STREAMS.filter((candidate) =>
    streamKeys.includes(candidate.key),
  )) {
    const readings = await stream.fetch(fetchContext, { from, to }, new Set(stream.metrics));
    // On the test's clock, as the sync stores them: the store refuses readings more than two
    // days ahead of its `now`, and the system clock (TEST_NOW, or a real date before the
    // fixture days) would put 2026-11 there.
    const stored = await readingsServiceFor(db(), () => clock.now()).store(
      readings.map((reading) => ({
        ...reading,
        teamId,
        participantId: participant.id,
        brand: 'Fitbit' as const,
        upstream: row!.upstream,
      })),
    );
    // A refused reading would only show later as a store answer short of the live one.
    expect(stored.rejected, `${stream.key}: readings the store refused`).toBe(0);
    for (const metricKey of stream.metrics) {
      await db().insert(syncCursors).values({
        participantDeviceId: row!.id,
        teamId,
        metricKey,
        backfillFrom: from,
        syncedUntil: to,
      });
    }
  }
}

describe('stored readings', () => {
  const STORED = [
    ...(['steps', 'distance', 'floors', 'calories'] as const).map((resource) => ({
      name: `${resource} by range`,
      path: `activities/${resource}/date/${START}/${END}.json`,
    })),
    { name: 'heart intraday 1sec', path: `activities/heart/date/${DAY}/1d/1sec.json` },
    { name: 'heart intraday 1min', path: `activities/heart/date/${DAY}/1d/1min.json` },
    {
      name: 'heart intraday 15min',
      path: `activities/heart/date/${DAY}/1d/15min/time/06:10/18:44.json`,
    },
    { name: 'body weight logs', path: `body/log/weight/date/${START}/${END}.json` },
    { name: 'body fat logs', path: `body/log/fat/date/${START}/${END}.json` },
    { name: 'cardio fitness score', path: `cardioscore/date/${START}/${END}.json` },
    { name: 'SpO2 (average and bounds)', path: `spo2/date/${START}/${END}.json` },
    { name: 'SpO2 of one night', path: `spo2/date/${DAY}.json` },
    { name: 'sleep logs with stages by range', path: `sleep/date/${START}/${END}.json` },
    { name: 'sleep logs and summary of one date', path: `sleep/date/${DAY}.json` },
    {
      name: 'lightly active minutes',
      path: `activities/minutesLightlyActive/date/${START}/${END}.json`,
    },
    {
      name: 'tracker fairly active minutes',
      path: `activities/tracker/minutesFairlyActive/date/${END}/${START}.json`,
    },
  ];
  let participant: P;
  const live = new Map<string, unknown>();

  beforeAll(async () => {
    participant = await googleParticipant();
    for (const { path } of STORED) {
      const response = await user.get(dataPath(participant, path));
      expect(response.statusCode, `${path}: ${response.body}`).toBe(200);
      live.set(path, response.json());
    }
    // Heart rate is stored per sample: two days around DAY only, to keep the store small.
    await syncInto(
      participant,
      ['heart-rate'],
      new Date('2026-11-02T00:00:00Z'),
      new Date('2026-11-05T00:00:00Z'),
    );
    await syncInto(
      participant,
      [
        'steps',
        'distance',
        'floors',
        'total-calories',
        'daily-resting-heart-rate',
        'weight',
        'body-fat',
        'daily-vo2-max',
        'activity-level',
        'daily-oxygen-saturation',
        'sleep',
      ],
      new Date('2026-10-30T00:00:00Z'),
      new Date('2026-11-10T00:00:00Z'),
    );
  });

  it.each(STORED)(
    '$name: a range sync covers is answered from the store, equal to the live answer',
    async ({ path }) => {
      // The upstream is down: only the store can answer now.
      await injectFault(sims.googleHealth.baseUrl, {
        kind: 'server-error',
        target: 'api',
        times: 'always',
        status: 503,
      });
      const stored = await user.get(dataPath(participant, path));
      expect(stored.statusCode, stored.body).toBe(200);
      expect(stored.json()).toEqual(live.get(path));
    },
  );

  it("a day's heart rate is answered from the store once the daily resting heart rate covers that day (not 14 h past it)", async () => {
    const own = await googleParticipant();
    const path = `activities/heart/date/${DAY}/1d/1min.json`;
    const liveAnswer = await user.get(dataPath(own, path));
    expect(liveAnswer.statusCode, liveAnswer.body).toBe(200);
    await syncInto(
      own,
      ['heart-rate'],
      new Date('2026-11-02T00:00:00Z'),
      new Date('2026-11-05T00:00:00Z'),
    );
    // The daily sync last ran just after the day ended: the day's resting rate is final.
    await syncInto(
      own,
      ['daily-resting-heart-rate'],
      new Date('2026-11-02T00:00:00Z'),
      new Date('2026-11-04T00:05:00Z'),
    );
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'server-error',
      target: 'api',
      times: 'always',
      status: 503,
    });
    const stored = await user.get(dataPath(own, path));
    expect(stored.statusCode, stored.body).toBe(200);
    expect(stored.json()).toEqual(liveAnswer.json());
  });

  it('a range sync does not cover still goes upstream', async () => {
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'server-error',
      target: 'api',
      times: 'always',
      status: 503,
    });
    const uncovered = await user.get(
      dataPath(participant, 'activities/steps/date/2026-10-20/2026-10-26.json'),
    );
    expect(uncovered.statusCode, uncovered.body).toBe(502);
    // 5xx messages are generic (error handler); the web shows the spec text for the reason.
    expect(uncovered.json().reason).toBe(FITBIT_DATA_REASONS.upstreamFailed);
  });

  it('the stored sleep range holds several nights with their stages; the readings table shows the nightly totals only, not the kept session', async () => {
    const answer = live.get(`sleep/date/${START}/${END}.json`) as {
      sleep: { dateOfSleep: string; levels: { data: unknown[] } }[];
    };
    expect(answer.sleep.length).toBeGreaterThanOrEqual(5);
    expect(answer.sleep.every((log) => log.levels.data.length > 0)).toBe(true);
    const table = await user.get(
      `/api/participantReadings/${participant.id}/fitbit?pageIndex=0&pageSize=50&metric=sleep_stages`,
    );
    expect(table.statusCode, table.body).toBe(200);
    const rows = table.json().rows as { valueJson: Json }[];
    expect(rows.length).toBeGreaterThanOrEqual(5);
    for (const row of rows) expect(Object.keys(row.valueJson).sort()).toEqual(['minutes', 'type']);
  });

  it('sleep rows stored before sync kept the session (no levels) make the call go upstream', async () => {
    const own = await googleParticipant();
    const path = `sleep/date/${START}/${END}.json`;
    const liveAnswer = await user.get(dataPath(own, path));
    expect(liveAnswer.statusCode, liveAnswer.body).toBe(200);
    await syncInto(
      own,
      ['sleep'],
      new Date('2026-10-30T00:00:00Z'),
      new Date('2026-11-10T00:00:00Z'),
    );
    // One night as an older sync stored it: the type and the minutes per stage only.
    await db().execute(
      sql`update device_readings set value_json = value_json - 'session'
          where participant_id = ${own.id} and metric_key = 'sleep_stages'
            and recorded_at = (select min(recorded_at) from device_readings
              where participant_id = ${own.id} and metric_key = 'sleep_stages'
                and end_at >= '2026-11-02T00:00:00Z')`,
    );
    const upstreamCalls = countRequests(sims.googleHealth, '/dataTypes/sleep/dataPoints');
    try {
      const again = await user.get(dataPath(own, path));
      expect(again.statusCode, again.body).toBe(200);
      expect(again.json()).toEqual(liveAnswer.json());
      expect(upstreamCalls.count).toBeGreaterThan(0);
    } finally {
      upstreamCalls.stop();
    }
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'server-error',
      target: 'api',
      times: 'always',
      status: 503,
    });
    const down = await user.get(dataPath(own, path));
    expect(down.statusCode, down.body).toBe(502);
    expect(down.json().reason).toBe(FITBIT_DATA_REASONS.upstreamFailed);
  });

  it('paths the store cannot answer (heart zones) still go upstream', async () => {
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'server-error',
      target: 'api',
      times: 'always',
      status: 503,
    });
    const path = `activities/heart/date/${START}/${END}.json`;
    const response = await user.get(dataPath(participant, path));
    expect(response.statusCode, path).toBe(502);
    expect(response.json().reason).toBe(FITBIT_DATA_REASONS.upstreamFailed);
  });
});

describe('access', () => {
  // The refused calls change nothing, so the cases share their accounts and participant.
  let participant: P;
  let refusedCallers: TestClient[];
  beforeAll(async () => {
    const viewerElsewhere = await createStaffUser(db(), { role: 'Viewer', teamId });
    await createTrial(db(), admin, [viewerElsewhere.email]);
    const otherTeam = (await createTeam(db(), { hiddenFields: [] })).id;
    const stranger = await createStaffUser(db(), { role: 'Admin', teamId: otherTeam });
    participant = await newParticipant();
    refusedCallers = [
      await signIn(ctx.app, db(), viewerElsewhere),
      await signIn(ctx.app, db(), stranger),
    ];
  });

  it.each(GOOGLE_CASES)(
    '$name: a Viewer of another trial and staff of another team get 404',
    async ({ path }) => {
      for (const caller of refusedCallers) {
        const refused = await caller.get(dataPath(participant, path));
        expect(refused.statusCode).toBe(404);
        // An error envelope only (its `location` echoes the caller's own URL): no data keys.
        expect(
          Object.keys(refused.json()).filter((key) =>
            /activities|sleep|weight|fat|cardioScore|foods|dateTime/.test(key),
          ),
        ).toEqual([]);
      }
    },
  );
});
