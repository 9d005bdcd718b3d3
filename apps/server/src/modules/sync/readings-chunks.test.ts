import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import {
  deviceMetricSettings,
  globalDeviceCatalog,
  teamDeviceDataStorageSettings,
  teamSupportedDevices,
} from '../../db/schema';
import { createTestDatabase } from '../../test/test-database';
import type { ReadingInput, ReadingsService } from './readings.service';
import { purgeExpiredReadings } from './retention';
import {
  createParticipants,
  readingsServiceFor,
  keptTotalsAndCounts,
  teamSummaryAndRebuild,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;
const CET = 60;

/**
 * The chunked store of high-rate streams (issue 29, decisions 0220 and 0255) through the
 * real write path: heart rate a sync stored goes into hour chunks, reads back identical
 * through every reader, a re-sync rewrites nothing, the mirror and concurrent syncs keep
 * the row store's guarantees, and a key is never in both stores.
 */
describe(`chunked heart rate (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let ids: number[];

  const db = () => database.db;
  /** 5-second heart rate from `start`, `count` points; `value(i)` bpm. */
  const heartRate = (
    participantId: number,
    start: number,
    count: number,
    value: (index: number) => number = (index) => 60 + (index % 37),
    overrides: Partial<ReadingInput> = {},
  ): ReadingInput[] =>
    Array.from({ length: count }, (_, index) => ({
      participantId,
      teamId,
      brand: 'Fitbit',
      metricKey: 'heart_rate',
      recordedAt: new Date(start + index * 5000),
      value: value(index),
      utcOffsetMinutes: CET,
      upstream: 'google-health',
      dataSource: 'Pixel Watch',
      ...overrides,
    }));
  const chunks = async (participantId: number) =>
    (
      await db().execute<{ period_start: string; n: number; version: string }>(sql`
        select period_start, cardinality(steps_ms) as n, xmin::text as version
          from device_reading_chunks where participant_id = ${participantId} order by period_start`)
    ).rows.map((row) => ({
      at: new Date(row.period_start).toISOString(),
      n: Number(row.n),
      version: row.version,
    }));
  const heartRateRows = async (participantId: number) =>
    Number(
      (
        await db().execute<{ n: number }>(
          sql`select count(*)::int as n from device_readings where participant_id = ${participantId} and metric_key = 'heart_rate'`,
        )
      ).rows[0]!.n,
    );
  const readBack = async (participantId: number, from: number, to: number) =>
    (
      await readings.read({
        teamId,
        participantId,
        metricKeys: ['heart_rate'],
        from: new Date(from),
        to: new Date(to),
      })
    ).map((row) => ({
      at: row.recordedAt.getTime(),
      value: row.value,
      offset: row.utcOffsetMinutes,
      upstream: row.upstream,
      dataSource: row.dataSource,
      endAt: row.endAt,
      valueJson: row.valueJson,
    }));
  const expected = (inputs: readonly ReadingInput[]) =>
    [...inputs]
      .sort((a, b) => a.recordedAt.getTime() - b.recordedAt.getTime())
      .map((input) => ({
        at: input.recordedAt.getTime(),
        value: input.value,
        offset: input.utcOffsetMinutes,
        upstream: input.upstream,
        dataSource: input.dataSource,
        endAt: null,
        valueJson: null,
      }));
  const expectSummaryFromScratch = async () => {
    const { maintained, scratch } = await teamSummaryAndRebuild(db(), teamId);
    expect(maintained.length).toBeGreaterThan(0);
    expect(maintained).toEqual(scratch);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 6);
    teamId = fixture.teamId;
    ids = fixture.participantIds;
  });
  // Every write, mirror delete, purge and migration keeps the totals (decision 0257).
  afterEach(async () => {
    const { kept, counted } = await keptTotalsAndCounts(database.db);
    expect(Object.keys(counted).length).toBeGreaterThan(0);
    expect(kept).toEqual(counted);
  });
  afterAll(() => database?.close());

  it('stores synced heart rate as hour chunks that read back identical; a re-sync rewrites nothing', async () => {
    const participantId = ids[0]!;
    // 10:30 to 12:10 UTC: three hour chunks (half, whole, a sixth), 1,200 points.
    const start = Date.parse('2026-11-10T10:30:00Z');
    const inputs = heartRate(participantId, start, 1200, (index) => 50 + ((index * 7) % 90) + 0.5);
    const first = await readings.store(inputs, { syncRunId: 1 });
    expect(first).toMatchObject({ inserted: 1200, updated: 0, rejected: 0 });
    expect(await heartRateRows(participantId)).toBe(0);
    const stored = await chunks(participantId);
    expect(stored.map(({ at, n }) => ({ at, n }))).toEqual([
      { at: '2026-11-10T10:00:00.000Z', n: 360 },
      { at: '2026-11-10T11:00:00.000Z', n: 720 },
      { at: '2026-11-10T12:00:00.000Z', n: 120 },
    ]);
    expect(await readBack(participantId, start - HOUR, start + 3 * HOUR)).toEqual(expected(inputs));
    // A window inside one chunk reads only its points.
    const inside = await readBack(participantId, start + 3600 * 1000, start + 3605 * 1000);
    expect(inside.map((point) => point.at)).toEqual([start + HOUR]);
    // The first and last instants of a stream with no rows, from its chunks alone.
    expect(await readings.stats(teamId, participantId)).toEqual([
      {
        metricKey: 'heart_rate',
        brand: 'Fitbit',
        rows: 1200,
        earliest: new Date(start),
        latest: new Date(start + 1199 * 5000),
      },
    ]);
    // The stored-readings table: newest first, its total counted from the chunks' sizes.
    const page = await readings.page(
      { teamId, participantId, brand: 'Fitbit' },
      { page: { index: 1, size: 50 }, sort: null, filter: '' },
    );
    expect(page.total).toBe(1200);
    expect(page.rows.map((row) => row.recordedAt.getTime())).toEqual(
      expected(inputs)
        .reverse()
        .slice(50, 100)
        .map((point) => point.at),
    );
    await expectSummaryFromScratch();

    // Found and counted by the export's participant list and the retention page.
    expect(await readings.participantsWithReadings(teamId, 'Fitbit', [participantId])).toEqual(
      new Set([participantId]),
    );
    const viewCount = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from stored_readings where team_id = ${teamId} and metric_key = 'heart_rate'`,
    );
    expect(await readings.countOfTeamMetric(teamId, 'heart_rate', ['Fitbit'])).toBe(
      Number(viewCount.rows[0]!.n),
    );

    // The same window again: nothing counted, no chunk row rewritten (same row versions).
    const again = await readings.store(inputs, { syncRunId: 2 });
    expect(again).toMatchObject({ inserted: 0, updated: 0 });
    expect(await chunks(participantId)).toEqual(stored);
  });

  it('mirrors an edited and a deleted upstream point, and a period the answer no longer holds', async () => {
    const participantId = ids[1]!;
    const start = Date.parse('2026-11-11T08:00:00Z');
    const inputs = heartRate(participantId, start, 3 * 720);
    await readings.store(inputs, { syncRunId: 1 });
    // The provider's answer for 08:00–11:00 now: one value edited, one point gone, and
    // nothing at all in the last hour.
    const edited = inputs
      .slice(0, 2 * 720)
      .filter((_, index) => index !== 100)
      .map((input, index) => (index === 10 ? { ...input, value: 199 } : input));
    const result = await readings.store(edited, {
      syncRunId: 2,
      mirror: {
        participantId,
        teamId,
        brand: 'Fitbit',
        metricKeys: ['heart_rate'],
        range: { on: 'recorded_at', from: new Date(start), to: new Date(start + 3 * HOUR) },
      },
    });
    expect(result).toMatchObject({ inserted: 0, updated: 1, deleted: 1 + 720 });
    expect(await readBack(participantId, start, start + 3 * HOUR)).toEqual(expected(edited));
    expect((await chunks(participantId)).map((chunk) => chunk.n)).toEqual([719, 720]);
    await expectSummaryFromScratch();
  });

  it('two concurrent syncs of one participant lose no point', async () => {
    const participantId = ids[2]!;
    const start = Date.parse('2026-11-12T09:00:00Z');
    // Two syncs of the same hours (different instants, as two upstream windows overlapping
    // a period): each merges into chunks the other is writing.
    const even = heartRate(participantId, start, 1440).filter((_, index) => index % 2 === 0);
    const odd = heartRate(participantId, start, 1440).filter((_, index) => index % 2 === 1);
    for (let round = 0; round < 3; round += 1) {
      const shift = round * 2 * HOUR;
      const move = (inputs: ReadingInput[]) =>
        inputs.map((input) => ({
          ...input,
          recordedAt: new Date(input.recordedAt.getTime() + shift),
        }));
      const [a, b] = await Promise.all([
        readings.store(move(even), { syncRunId: 10 + round }),
        readings.store(move(odd), { syncRunId: 20 + round }),
      ]);
      expect(a.inserted + b.inserted).toBe(1440);
    }
    const all = await readBack(participantId, start, start + 6 * HOUR);
    expect(all).toHaveLength(3 * 1440);
    await expectSummaryFromScratch();
  });

  it('keeps a key in one store: a sync takes over a seeded row, a row write turns the chunk back into rows', async () => {
    const participantId = ids[3]!;
    const start = Date.parse('2026-11-13T06:00:00Z');
    // Seeded readings (no sync run) stay rows.
    const seeded = heartRate(participantId, start, 60, () => 70, {
      upstream: 'demo',
      dataSource: null,
    });
    await readings.store(seeded);
    expect(await heartRateRows(participantId)).toBe(60);
    // A sync of the same instants: the keys move into the chunk, counted as updated (the
    // upstream changes), as the row store counted a seeded row replaced by a sync.
    const synced = heartRate(participantId, start, 120, () => 70);
    expect(await readings.store(synced, { syncRunId: 3 })).toMatchObject({
      inserted: 60,
      updated: 60,
    });
    expect(await heartRateRows(participantId)).toBe(0);
    expect((await chunks(participantId)).map((chunk) => chunk.n)).toEqual([120]);
    expect(await readBack(participantId, start, start + HOUR)).toEqual(expected(synced));

    // A reading written without a sync run into that hour: the chunk becomes rows first.
    const manual = heartRate(participantId, start + 30 * 60_000 + 2500, 1, () => 88, {
      upstream: 'demo',
      dataSource: null,
    });
    expect(await readings.store(manual)).toMatchObject({ inserted: 1, updated: 0 });
    expect(await chunks(participantId)).toEqual([]);
    expect(await heartRateRows(participantId)).toBe(121);
    expect(await readBack(participantId, start, start + HOUR)).toEqual(
      expected([...synced, ...manual]),
    );
    // Points of another data source in a period make it rows as well.
    const other = heartRate(participantId, start + 2 * HOUR, 10, undefined, {
      dataSource: 'Charge 6',
    });
    await readings.store([...heartRate(participantId, start + 2 * HOUR + 2500, 10), ...other], {
      syncRunId: 4,
    });
    expect(await heartRateRows(participantId)).toBe(141);
    await expectSummaryFromScratch();
  });

  it("the overview's first and last instants of a stream held partly as rows and partly as chunks", async () => {
    const participantId = ids[5]!;
    const start = Date.parse('2026-09-20T06:00:00Z');
    // A seeded hour (no sync run: rows) in September, synced hours (chunks) in November.
    await readings.store(
      heartRate(participantId, start, 30, undefined, { upstream: 'demo', dataSource: null }),
    );
    const later = Date.parse('2026-11-14T10:00:00Z');
    await readings.store(heartRate(participantId, later, 1000), { syncRunId: 7 });
    expect(await heartRateRows(participantId)).toBe(30);
    expect((await chunks(participantId)).length).toBe(2);
    expect(await readings.stats(teamId, participantId)).toEqual([
      {
        metricKey: 'heart_rate',
        brand: 'Fitbit',
        rows: 1030,
        earliest: new Date(start),
        latest: new Date(later + 999 * 5000),
      },
    ]);
    // Rows after the chunks: the latest is a row's.
    await readings.store(
      heartRate(participantId, later + 5 * HOUR, 3, undefined, {
        upstream: 'demo',
        dataSource: null,
      }),
    );
    expect((await readings.stats(teamId, participantId))[0]).toMatchObject({
      rows: 1033,
      earliest: new Date(start),
      latest: new Date(later + 5 * HOUR + 2 * 5000),
    });
    // Migration 0025 counts the rows already stored (its last statement): from nothing here,
    // the totals the afterEach compares with a count from scratch.
    await db().execute(sql`update device_reading_totals set row_readings = 0`);
    const migration = fs.readFileSync(
      new URL('../../db/migrations/0025_reading_totals_rows.sql', import.meta.url),
      'utf8',
    );
    await db().execute(sql.raw(migration.split('--> statement-breakpoint').at(-1)!));
  });

  it('iterates chunked heart rate a day at a time in the same pages as one keyset read', async () => {
    const participantId = ids[1]!;
    const start = Date.parse('2026-11-11T08:00:00Z');
    // Two days with heart rate, a day between without, and rows of other metrics around.
    await readings.store(heartRate(participantId, start + 2 * 86_400_000 - 600_000, 400), {
      syncRunId: 6,
    });
    const base = {
      participantId,
      teamId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
    };
    await readings.store([
      { ...base, metricKey: 'steps', recordedAt: new Date('2026-11-11T00:00:00Z'), value: 9000 },
      { ...base, metricKey: 'steps', recordedAt: new Date('2026-11-13T00:00:00Z'), value: 7000 },
      {
        ...base,
        metricKey: 'resting_heart_rate',
        recordedAt: new Date('2026-11-12T00:00:00Z'),
        value: 58,
      },
    ]);
    const query = {
      teamId,
      participantId,
      from: new Date('2026-11-10T05:30:00Z'),
      to: new Date('2026-11-14T00:00:00Z'),
    };
    const whole = await readings.read(query);
    expect(whole.length).toBe(2 * 720 - 1 + 400 + 3);
    const pages: number[] = [];
    const seen: string[] = [];
    for await (const page of readings.iterate(query, { pageSize: 250 })) {
      pages.push(page.length);
      seen.push(
        ...page.map((row) => `${row.metricKey}|${row.recordedAt.toISOString()}|${row.value}`),
      );
    }
    expect(seen).toEqual(
      whole.map((row) => `${row.metricKey}|${row.recordedAt.toISOString()}|${row.value}`),
    );
    // Full pages but the last.
    expect(pages.slice(0, -1).every((size) => size === 250)).toBe(true);
    expect(pages.at(-1)).toBe(whole.length - 250 * (pages.length - 1));
  });

  it('the retention purge deletes expired chunks and cuts the chunk that straddles the horizon', async () => {
    const participantId = ids[4]!;
    const [device] = await db()
      .insert(globalDeviceCatalog)
      .values({ manufacturer: 'Fitbit', deviceType: 'TRACKER', deviceName: `Chunks ${teamId}` })
      .returning();
    const [supported] = await db()
      .insert(teamSupportedDevices)
      .values({ teamId, globalDeviceCatalogId: device!.id })
      .returning();
    const setting = {
      teamId,
      teamSupportedDeviceId: supported!.id,
      metricKey: 'heart_rate',
      metricName: 'heart_rate',
      isEnabled: true,
      retentionDays: 2,
    };
    await db().insert(deviceMetricSettings).values(setting);
    await db().insert(teamDeviceDataStorageSettings).values(setting);
    // Purged at 20 Nov 12:30 the horizon is 18 Nov 12:30 UTC: the chunks of 10:00 and
    // 11:00 go, the chunk of 12:00 keeps its second half, 13:00 stays.
    const start = Date.parse('2026-11-18T10:00:00Z');
    const inputs = heartRate(participantId, start, 4 * 720);
    await readings.store(inputs, { syncRunId: 5 });
    const before = await chunks(participantId);
    const otherParticipants = await db().execute<{ n: number }>(
      sql`select count(*)::int as n from stored_readings where team_id = ${teamId} and participant_id <> ${participantId}`,
    );
    const now = new Date(NOW.getTime() + 30 * 60_000);
    const result = await purgeExpiredReadings(db(), { now, runId: 'chunks', batchSize: 200 });
    const cutoff = now.getTime() - 2 * 86_400_000;
    const kept = inputs.filter((input) => input.recordedAt.getTime() >= cutoff);
    expect(await readBack(participantId, start, start + 4 * HOUR)).toEqual(expected(kept));
    expect((await chunks(participantId)).map((chunk) => chunk.at)).toEqual(
      before.slice(2).map((chunk) => chunk.at),
    );
    // Every other participant's readings of this team were older: none of them is left.
    expect(result.deleted).toBe(inputs.length - kept.length + Number(otherParticipants.rows[0]!.n));
    await expectSummaryFromScratch();
  });
});
