import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import { startSyncSimulators, type SyncSimulators } from '../../modules/sync/test-support';
import { dataServicesFor, leafCount, syncedAccount } from '../contract-support';

/**
 * Contract: a Fitbit account synced through the real sync answers every resource path the
 * store serves (decision 0062) from its stored readings exactly as the upstream answers it
 * live for the same range, field by field — through Google Health (translated to the Fitbit
 * shapes) and through the retired Fitbit Web API (passed through as sent). The stored call
 * must make no provider call; the live one must. The simulators stand on one frozen clock.
 */
const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2025-06-11T06:00:00Z');
const START = '2025-06-03';
const END = '2025-06-09';
const DAY = '2025-06-07';

const SERIES = [
  'steps',
  'distance',
  'floors',
  'calories',
  'minutesLightlyActive',
  'minutesFairlyActive',
  'minutesVeryActive',
] as const;
const SERIES_METRICS = [
  'steps',
  'distance',
  'floors',
  'calories',
  'minutes_lightly_active',
  'minutes_fairly_active',
  'minutes_very_active',
];

describe(`Fitbit: stored answers equal live answers after a real sync (${MODE})`, () => {
  let database: Database;
  let sims: SyncSimulators;

  beforeAll(async () => {
    database = await createTestDatabase();
    sims = await startSyncSimulators(NOW);
  });
  afterAll(async () => {
    await sims?.close();
    await database?.close();
  });

  /** Asks each path stored, then live, and compares; answers the figures compared. */
  async function compare(teamId: number, participantId: number, paths: readonly string[]) {
    const services = dataServicesFor(database, sims, teamId);
    const { auth, meta, fitbitData } = services;
    let fields = 0;
    for (const path of paths) {
      const before = services.liveCalls();
      const stored = await fitbitData.get(auth, participantId, 'x@example.test', path, meta);
      expect(services.liveCalls(), `${path}: stored readings answered`).toBe(before);
      const live = await fitbitData.get(
        auth,
        participantId,
        'x@example.test',
        path,
        meta,
        {},
        {
          allowStored: false,
        },
      );
      expect(services.liveCalls(), `${path}: the upstream answered`).toBeGreaterThan(before);
      expect(stored, path).toEqual(live);
      fields += leafCount(live);
    }
    return { calls: paths.length, fields };
  }

  it('Google Health (ava-thompson): activity series, heart rate intraday, weight, fat, sleep, SpO2 and cardio score alike', async () => {
    const { teamId, participantId } = await syncedAccount(database, sims, {
      brand: 'Fitbit',
      account: 'ava-thompson',
      enrolledDaysAgo: 10,
      metrics: [
        ...SERIES_METRICS,
        'heart_rate',
        'resting_heart_rate',
        'weight',
        'body_fat',
        'sleep_stages',
        'sleep_duration',
        'spo2',
        'vo2_max',
      ],
    });
    const figures = await compare(teamId, participantId, [
      ...SERIES.map((resource) => `activities/${resource}/date/${START}/${END}.json`),
      `activities/heart/date/${DAY}/1d/1min.json`,
      `activities/heart/date/${DAY}/1d/15min.json`,
      `activities/heart/date/${DAY}/1d/1min/time/08:00/11:59.json`,
      `body/log/weight/date/${START}/${END}.json`,
      `body/log/fat/date/${START}/${END}.json`,
      `sleep/date/${START}/${END}.json`,
      `sleep/date/${DAY}.json`,
      `spo2/date/${START}/${END}.json`,
      `spo2/date/${DAY}.json`,
      `cardioscore/date/${START}/${END}.json`,
    ]);
    console.info(
      `Fitbit contract, Google Health: ${figures.calls} calls, ${figures.fields} fields compared`,
    );
    expect(figures.fields).toBeGreaterThan(1000);
  });

  it('Fitbit Web API (legacy connection): activity series, weight and fat alike', async () => {
    const { teamId, participantId } = await syncedAccount(database, sims, {
      brand: 'Fitbit',
      upstream: 'fitbit-legacy',
      account: 'ava-thompson',
      enrolledDaysAgo: 10,
      metrics: [
        ...SERIES_METRICS,
        'resting_heart_rate',
        'weight',
        'body_fat',
        'bmi',
        'sleep_duration',
      ],
    });
    const figures = await compare(teamId, participantId, [
      ...SERIES.map((resource) => `activities/${resource}/date/${START}/${END}.json`),
      `body/log/weight/date/${START}/${END}.json`,
      `body/log/fat/date/${START}/${END}.json`,
    ]);
    console.info(
      `Fitbit contract, legacy API: ${figures.calls} calls, ${figures.fields} fields compared`,
    );
    expect(figures.fields).toBeGreaterThan(50);
  });
});
