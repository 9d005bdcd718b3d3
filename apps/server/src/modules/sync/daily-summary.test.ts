import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIGRATIONS_DIR } from '../../config/paths';
import type { Database } from '../../db/client';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
} from '../../db/schema';
import { createTestDatabase } from '../../test/test-database';
import { dailySummariesFromReadings, readingDaysFromScratch } from './daily-summary';
import { UPSERT_BATCH_SIZE } from './readings.repository';
import type { ReadingInput, ReadingsService } from './readings.service';
import { purgeExpiredReadings } from './retention';
import { createParticipants, readingsServiceFor } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-20T12:00:00Z');
const MINUTE = 60_000;
const CET = 60; // UTC+1 (Berlin in November)
const NYC = -300; // UTC−5

/**
 * The day summary (decision 0058) that the write path and the purge maintain equals a
 * computation from scratch over the raw readings after every kind of change, and the
 * completeness grid's figures read from it equal the raw GROUP BY they replaced.
 */
describe(`day summary of stored readings (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let berlin: number;
  let newYork: number;

  const db = () => database.db;
  const reading = (
    participantId: number,
    overrides: Partial<ReadingInput> & Pick<ReadingInput, 'metricKey' | 'recordedAt'>,
  ): ReadingInput => ({
    participantId,
    teamId,
    brand: 'Fitbit',
    upstream: 'google-health',
    value: 1,
    ...overrides,
  });
  /** One heart-rate sample a minute for `minutes` minutes from `start`. */
  const heartRate = (
    participantId: number,
    start: Date,
    minutes: number,
    utcOffsetMinutes: number,
    brand: ReadingInput['brand'] = 'Fitbit',
  ) =>
    Array.from({ length: minutes }, (_, index) =>
      reading(participantId, {
        metricKey: 'heart_rate',
        recordedAt: new Date(start.getTime() + index * MINUTE),
        utcOffsetMinutes,
        value: 60 + (index % 30),
        brand,
        upstream: brand === 'Fitbit' ? 'google-health' : 'omron',
      }),
    );

  const maintained = async () =>
    (
      await db().execute(sql`
        select participant_id, team_id, metric_key, to_char(day, 'YYYY-MM-DD') as day,
               readings, minutes, value_sum, first_at, last_at
          from device_reading_days order by 1, 2, 3, 4`)
    ).rows;
  const fromScratch = async () =>
    (
      await db().execute(sql`
        select participant_id, team_id, metric_key, to_char(day, 'YYYY-MM-DD') as day,
               readings, minutes, value_sum, first_at, last_at
          from (${readingDaysFromScratch()}) s order by 1, 2, 3, 4`)
    ).rows;
  /** The summary table equals the one computed over the raw readings, and so do the grid's figures. */
  const expectSummaryMatchesReadings = async (from: string, to: string) => {
    const table = await maintained();
    expect(table.length).toBeGreaterThan(0);
    expect(table).toEqual(await fromScratch());
    const ids = [berlin, newYork];
    expect(await readings.dailySummaries(teamId, ids, from, to)).toEqual(
      await dailySummariesFromReadings(db(), teamId, ids, from, to),
    );
  };
  const gridDay = async (participantId: number, day: string) =>
    (await readings.dailySummaries(teamId, [participantId], day, day))[0];

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 2);
    teamId = fixture.teamId;
    [berlin, newYork] = fixture.participantIds as [number, number];
  });
  afterAll(() => database?.close());

  it('a sync batch that adds readings adds and recomputes the days it touches, on local days', async () => {
    // 23:00–23:59 UTC on 9 November is 00:00–00:59 on 10 November in Berlin.
    await readings.store([
      ...heartRate(berlin, new Date('2026-11-09T23:00:00Z'), 600, CET),
      ...heartRate(newYork, new Date('2026-11-10T02:00:00Z'), 120, NYC),
      reading(berlin, {
        metricKey: 'steps',
        recordedAt: new Date('2026-11-10T00:00:00Z'),
        value: 8042,
      }),
      reading(berlin, {
        metricKey: 'sleep_duration',
        recordedAt: new Date('2026-11-09T22:00:00Z'),
        endAt: new Date('2026-11-10T06:00:00Z'),
        utcOffsetMinutes: CET,
        value: 480,
      }),
    ]);
    expect(await gridDay(berlin, '2026-11-10')).toMatchObject({
      wearMinutes: 600,
      steps: 8042,
      sleepMinutes: 480,
    });
    // New York: 02:00–03:59 UTC on 10 November is 21:00–22:59 on 9 November locally.
    expect(await gridDay(newYork, '2026-11-09')).toMatchObject({ wearMinutes: 120 });
    expect(await gridDay(newYork, '2026-11-10')).toBeUndefined();

    // A later batch on the same day: more minutes, a second brand on minutes already worn
    // (each still counts once), a second sample inside a worn minute.
    await readings.store([
      ...heartRate(berlin, new Date('2026-11-10T09:00:00Z'), 60, CET),
      ...heartRate(berlin, new Date('2026-11-10T09:00:00Z'), 30, CET, 'Omron'),
      reading(berlin, {
        metricKey: 'heart_rate',
        recordedAt: new Date('2026-11-10T09:00:30Z'),
        utcOffsetMinutes: CET,
        value: 99,
      }),
    ]);
    expect(await gridDay(berlin, '2026-11-10')).toMatchObject({ wearMinutes: 600 + 60 });
    await expectSummaryMatchesReadings('2026-11-01', '2026-11-20');
  });

  it('a sync batch that updates readings moves them between days and recomputes both', async () => {
    // The provider corrects the offset of Berlin's first hour: UTC−1 instead of UTC+1, so
    // 23:00–23:59 UTC on 9 November is 22:00–22:59 on 9 November — it leaves the 10th.
    const counts = await readings.store(
      heartRate(berlin, new Date('2026-11-09T23:00:00Z'), 60, -60),
    );
    expect(counts).toEqual({ inserted: 0, updated: 60, rejected: 0 });
    expect(await gridDay(berlin, '2026-11-09')).toMatchObject({ wearMinutes: 60 });
    expect(await gridDay(berlin, '2026-11-10')).toMatchObject({ wearMinutes: 600 });
    // A corrected step count and a sleep session that now ends the next day.
    await readings.store([
      reading(berlin, {
        metricKey: 'steps',
        recordedAt: new Date('2026-11-10T00:00:00Z'),
        value: 9000,
      }),
      reading(berlin, {
        metricKey: 'sleep_duration',
        recordedAt: new Date('2026-11-09T22:00:00Z'),
        endAt: new Date('2026-11-10T23:30:00Z'),
        utcOffsetMinutes: CET,
        value: 480,
      }),
    ]);
    expect(await gridDay(berlin, '2026-11-10')).toMatchObject({ steps: 9000, sleepMinutes: null });
    expect(await gridDay(berlin, '2026-11-11')).toMatchObject({ sleepMinutes: 480 });
    await expectSummaryMatchesReadings('2026-11-01', '2026-11-20');
  });

  it('a store larger than one upsert batch, across a month boundary, keeps every day right', async () => {
    const minutes = UPSERT_BATCH_SIZE + 1_500; // 4.5 days of minutes, 28 Oct → 1 Nov
    const rows = heartRate(newYork, new Date('2026-10-28T05:00:00Z'), minutes, NYC);
    rows.push(
      ...Array.from({ length: 700 }, (_, index) =>
        reading(newYork, {
          metricKey: 'egv',
          brand: 'Dexcom',
          upstream: 'dexcom',
          recordedAt: new Date(Date.parse('2026-10-29T05:00:00Z') + index * 5 * MINUTE),
          utcOffsetMinutes: NYC,
          value: 110,
        }),
      ),
    );
    await readings.store(rows);
    // 29 and 30 October New York time are whole worn days; the CGM's first 288 readings fill the 29th.
    expect(await gridDay(newYork, '2026-10-29')).toMatchObject({
      wearMinutes: 1440,
      cgmReadings: 288,
    });
    expect(await gridDay(newYork, '2026-10-30')).toMatchObject({
      wearMinutes: 1440,
      cgmReadings: 288,
    });
    await expectSummaryMatchesReadings('2026-10-20', '2026-11-20');
  });

  it('a re-sync with identical rows writes nothing: neither readings nor summary rows change', async () => {
    const before = (
      await db().execute(
        sql`select xmin::text as version, * from device_reading_days order by 2, 3, 4, 5`,
      )
    ).rows;
    const counts = await readings.store([
      ...heartRate(berlin, new Date('2026-11-09T23:00:00Z'), 60, -60),
      ...heartRate(berlin, new Date('2026-11-10T00:00:00Z'), 540, CET),
      reading(berlin, {
        metricKey: 'steps',
        recordedAt: new Date('2026-11-10T00:00:00Z'),
        value: 9000,
      }),
    ]);
    expect(counts).toEqual({ inserted: 0, updated: 0, rejected: 0 });
    const after = (
      await db().execute(
        sql`select xmin::text as version, * from device_reading_days order by 2, 3, 4, 5`,
      )
    ).rows;
    // The same row versions (xmin): nothing was rewritten, not even with equal figures.
    expect(after).toEqual(before);
  });

  it('two concurrent stores into one participant day both end up in the summary', async () => {
    // On PostgreSQL the two transactions overlap; each recomputes the day after taking the
    // participant's lock, so the later one sees the other's rows.
    for (let round = 0; round < 4; round += 1) {
      const start = Date.parse('2026-11-12T08:00:00Z') + round * 2 * 60 * MINUTE;
      await Promise.all([
        readings.store(heartRate(berlin, new Date(start), 60, CET)),
        readings.store(heartRate(berlin, new Date(start + 60 * MINUTE), 60, CET, 'Omron')),
      ]);
    }
    expect(await gridDay(berlin, '2026-11-12')).toMatchObject({ wearMinutes: 4 * 120 });
    await expectSummaryMatchesReadings('2026-10-20', '2026-11-20');
  });

  it('the retention purge updates the summary: dropped months and days cut by the horizon', async () => {
    const [device] = await db()
      .insert(globalDeviceCatalog)
      .values({
        manufacturer: 'Fitbit',
        deviceType: 'TRACKER',
        deviceName: `Summary tracker ${teamId}`,
      })
      .returning();
    const [supported] = await db()
      .insert(teamSupportedDevices)
      .values({ teamId, globalDeviceCatalogId: device!.id })
      .returning();
    const setting = (metricKey: string, retentionDays: number) => ({
      teamId,
      teamSupportedDeviceId: supported!.id,
      metricKey,
      metricName: metricKey,
      isEnabled: true,
      retentionDays,
    });
    // Heart rate kept 15 days; every other Fitbit metric is not enabled and goes.
    await db()
      .insert(deviceMetricSettings)
      .values([setting('heart_rate', 15)]);
    await db()
      .insert(teamDeviceDataStorageSettings)
      .values([setting('heart_rate', 15)]);
    // A September month (dropped whole), and a day the 15-day horizon (5 November 12:00 UTC) cuts.
    await readings.store([
      ...heartRate(berlin, new Date('2026-09-10T08:00:00Z'), 90, CET),
      ...heartRate(berlin, new Date('2026-11-05T10:00:00Z'), 240, CET),
    ]);
    expect(await gridDay(berlin, '2026-09-10')).toMatchObject({ wearMinutes: 90 });
    expect(await gridDay(berlin, '2026-11-05')).toMatchObject({ wearMinutes: 240 });

    const result = await purgeExpiredReadings(db(), { now: NOW, runId: 'summary', batchSize: 500 });
    // September, and October whose heart rate is expired and whose CGM is not enabled; New
    // York's 31 October ends at 05:00 UTC on 1 November, in the month that stays.
    expect(result.droppedPartitions).toEqual([
      'device_readings_p202609',
      'device_readings_p202610',
    ]);
    expect(await gridDay(berlin, '2026-09-10')).toBeUndefined();
    // 10:00–11:59 UTC went, 12:00–13:59 UTC stays.
    expect(await gridDay(berlin, '2026-11-05')).toMatchObject({ wearMinutes: 120 });
    // Steps and sleep are not enabled: the days lose them and keep their heart rate.
    expect(await gridDay(berlin, '2026-11-10')).toMatchObject({ wearMinutes: 600, steps: null });
    expect(await gridDay(berlin, '2026-11-11')).toBeUndefined();
    expect(await gridDay(newYork, '2026-10-29')).toBeUndefined();
    expect(await gridDay(newYork, '2026-10-31')).toBeUndefined();
    await expectSummaryMatchesReadings('2026-09-01', '2026-11-20');
  });

  it("the migration's backfill builds the same summary from the readings it finds", async () => {
    const migration = fs.readFileSync(path.join(MIGRATIONS_DIR, '0012_reading_days.sql'), 'utf8');
    const backfill = migration.slice(migration.indexOf('INSERT INTO "device_reading_days"'));
    const table = await maintained();
    await db().execute(sql`delete from device_reading_days`);
    await db().execute(sql.raw(backfill));
    expect(await maintained()).toEqual(table);
  });
});
