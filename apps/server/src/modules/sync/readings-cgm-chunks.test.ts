import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import { chunkStoredRows } from './chunk-migration';
import { createReadingsRepository } from './readings.repository';
import type { ReadingInput, ReadingsService } from './readings.service';
import {
  createParticipants,
  keptTotalsAndCounts,
  readingsServiceFor,
  teamSummaryAndRebuild,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-20T12:00:00Z');
const DAY = 86_400_000;
const EST = -300;

/**
 * CGM readings in the chunked store (issue 29, decision 0270) through the real write path:
 * Dexcom's egv (every 5 minutes, its trend and status as JSON, sometimes without a glucose
 * value) and its trend rate go into UTC-day chunks, read back identical with their JSON, a
 * re-sync rewrites nothing even when the JSON's keys come in another order, the mirror
 * follows an edited trend and a withdrawn reading, and rows stored before move into chunks.
 */
describe(`chunked CGM readings (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let ids: number[];

  const db = () => database.db;

  /** Readings of Dexcom's egvs from `start`, every 5 minutes, as the converter gives them. */
  const egvs = (participantId: number, start: number, count: number): ReadingInput[] =>
    Array.from({ length: count }, (_, index) => {
      const base = {
        participantId,
        teamId,
        brand: 'Dexcom' as const,
        recordedAt: new Date(start + index * 300_000),
        utcOffsetMinutes: EST,
        upstream: 'dexcom' as const,
        dataSource: 'G7',
      };
      const egv: ReadingInput = {
        ...base,
        metricKey: 'egv',
        // Every 25th reading without a value (Dexcom's "high"/"low" status instead).
        value: index % 25 === 7 ? null : 70 + ((index * 13) % 180),
        valueJson: {
          trend: ['flat', 'fortyFiveUp', 'singleDown'][index % 3],
          status: index % 25 === 7 ? 'high' : null,
          generation: 'g7',
          displayDevice: 'iOS',
        },
      };
      return index % 4 === 0
        ? [egv, { ...base, metricKey: 'egv_trend_rate', value: ((index % 9) - 4) / 2 }]
        : [egv];
    }).flat();

  const chunks = async (participantId: number) =>
    (
      await db().execute<{
        metric_key: string;
        period_start: string;
        n: number;
        version: string;
      }>(sql`
        select metric_key, period_start, cardinality(steps_ms) as n, xmin::text as version
          from device_reading_chunks where participant_id = ${participantId}
         order by metric_key, period_start`)
    ).rows.map((row) => ({
      metric: row.metric_key,
      at: new Date(row.period_start).toISOString(),
      n: Number(row.n),
      version: row.version,
    }));
  const rowsOf = async (participantId: number) =>
    Number(
      (
        await db().execute<{ n: number }>(
          sql`select count(*)::int as n from device_readings where participant_id = ${participantId}`,
        )
      ).rows[0]!.n,
    );
  const readBack = async (participantId: number, from: number, to: number) =>
    (
      await readings.read({
        teamId,
        participantId,
        metricKeys: ['egv', 'egv_trend_rate'],
        from: new Date(from),
        to: new Date(to),
      })
    )
      .map((row) => ({
        metric: row.metricKey,
        at: row.recordedAt.getTime(),
        value: row.value,
        offset: row.utcOffsetMinutes,
        upstream: row.upstream,
        dataSource: row.dataSource,
        valueJson: row.valueJson,
      }))
      .sort((a, b) => a.at - b.at || a.metric.localeCompare(b.metric));
  const expected = (inputs: readonly ReadingInput[]) =>
    inputs
      .map((input) => ({
        metric: input.metricKey,
        at: input.recordedAt.getTime(),
        value: input.value ?? null,
        offset: input.utcOffsetMinutes,
        upstream: input.upstream,
        dataSource: input.dataSource,
        valueJson: input.valueJson ?? null,
      }))
      .sort((a, b) => a.at - b.at || a.metric.localeCompare(b.metric));
  const expectSummaryFromScratch = async () => {
    const { maintained, scratch } = await teamSummaryAndRebuild(db(), teamId);
    expect(maintained.length).toBeGreaterThan(0);
    expect(maintained).toEqual(scratch);
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 3);
    teamId = fixture.teamId;
    ids = fixture.participantIds;
  });
  afterEach(async () => {
    const { kept, counted } = await keptTotalsAndCounts(database.db);
    expect(kept).toEqual(counted);
  });
  afterAll(() => database?.close());

  it('stores synced CGM readings as day chunks with their JSON; they read back identical and a re-sync rewrites nothing', async () => {
    const participantId = ids[0]!;
    // 18:00 UTC on the 10th to 06:00 on the 12th: parts of three UTC days.
    const start = Date.parse('2026-11-10T18:00:00Z');
    const inputs = egvs(participantId, start, 432);
    const first = await readings.store(inputs, { syncRunId: 1 });
    expect(first).toMatchObject({ inserted: inputs.length, updated: 0, rejected: 0 });
    expect(await rowsOf(participantId)).toBe(0);
    const stored = await chunks(participantId);
    expect(stored.map(({ metric, at, n }) => ({ metric, at, n }))).toEqual([
      { metric: 'egv', at: '2026-11-10T00:00:00.000Z', n: 72 },
      { metric: 'egv', at: '2026-11-11T00:00:00.000Z', n: 288 },
      { metric: 'egv', at: '2026-11-12T00:00:00.000Z', n: 72 },
      { metric: 'egv_trend_rate', at: '2026-11-10T00:00:00.000Z', n: 18 },
      { metric: 'egv_trend_rate', at: '2026-11-11T00:00:00.000Z', n: 72 },
      { metric: 'egv_trend_rate', at: '2026-11-12T00:00:00.000Z', n: 18 },
    ]);
    const read = await readBack(participantId, start - DAY, start + 3 * DAY);
    expect(read).toEqual(expected(inputs));
    // The readings without a glucose value kept their status.
    expect(read.filter((row) => row.metric === 'egv' && row.value === null)).toHaveLength(17);
    await expectSummaryFromScratch();

    // The same window again, the JSON's keys in another order: nothing counted or rewritten.
    const reordered = inputs.map((input) =>
      input.valueJson
        ? { ...input, valueJson: Object.fromEntries(Object.entries(input.valueJson).reverse()) }
        : input,
    );
    const again = await readings.store(reordered, { syncRunId: 2 });
    expect(again).toMatchObject({ inserted: 0, updated: 0 });
    expect(await chunks(participantId)).toEqual(stored);
  });

  it('mirrors an edited trend, a reading that lost its value and a withdrawn reading', async () => {
    const participantId = ids[1]!;
    const start = Date.parse('2026-11-13T00:00:00Z');
    const inputs = egvs(participantId, start, 288).filter((input) => input.metricKey === 'egv');
    await readings.store(inputs, { syncRunId: 1 });
    const answer = inputs
      .filter((_, index) => index !== 100)
      .map((input, index) =>
        index === 10
          ? { ...input, valueJson: { ...(input.valueJson as object), trend: 'doubleUp' } }
          : index === 20
            ? { ...input, value: null }
            : input,
      );
    const result = await readings.store(answer, {
      syncRunId: 2,
      mirror: {
        participantId,
        teamId,
        brand: 'Dexcom',
        metricKeys: ['egv'],
        range: { on: 'recorded_at', from: new Date(start), to: new Date(start + DAY) },
      },
    });
    expect(result).toMatchObject({ inserted: 0, updated: 2, deleted: 1 });
    expect(await readBack(participantId, start, start + DAY)).toEqual(expected(answer));
    expect((await chunks(participantId)).map((chunk) => chunk.n)).toEqual([287]);
    await expectSummaryFromScratch();
  });

  it('the migration moves CGM rows stored before chunks, with their JSON, and reads them back as before', async () => {
    const participantId = ids[2]!;
    const start = Date.parse('2026-11-14T12:00:00Z');
    const inputs = egvs(participantId, start, 300);
    // What earlier versions stored: rows, by a sync.
    await readings.store(inputs);
    await db().execute(
      sql`update device_readings set sync_run_id = 7 where participant_id = ${participantId}`,
    );
    const repository = createReadingsRepository(db());
    expect(await rowsOf(participantId)).toBe(inputs.length);
    const before = await readBack(participantId, start, start + 2 * DAY);
    expect(before).toEqual(expected(inputs));

    const moved = await chunkStoredRows(db(), repository);
    expect(moved).toMatchObject({ done: true, moved: inputs.length, skipped: 0 });
    expect(await rowsOf(participantId)).toBe(0);
    expect((await chunks(participantId)).map(({ metric, n }) => ({ metric, n }))).toEqual([
      { metric: 'egv', n: 144 },
      { metric: 'egv', n: 156 },
      { metric: 'egv_trend_rate', n: 36 },
      { metric: 'egv_trend_rate', n: 39 },
    ]);
    expect(await readBack(participantId, start, start + 2 * DAY)).toEqual(before);
    await expectSummaryFromScratch();
    // A sync of the same window afterwards finds everything in place.
    expect(await readings.store(inputs, { syncRunId: 8 })).toMatchObject({
      inserted: 0,
      updated: 0,
    });
  });
});
