import { sql } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import { chunkStoredRows } from './chunk-migration';
import { readingDaysFromScratch } from './daily-summary';
import { SYNC_CHUNK_ROWS_JOB, createSyncJobs } from './sync.jobs';
import { createReadingsRepository } from './readings.repository';
import type { ReadingInput, ReadingsService } from './readings.service';
import { createParticipants, readingsServiceFor, keptTotalsAndCounts } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-20T12:00:00Z');
const START = Date.parse('2026-11-09T21:17:30Z');

/**
 * The migration of rows stored before chunks into chunks (issue 29, decision 0255): in small
 * transactions while the server runs; killed half-way (a batch hook throws after the third
 * commit) and run again it ends exactly where an uninterrupted run ends, and every reading,
 * day summary row and page reads back as before.
 */
describe(`moving stored heart-rate rows into chunks (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let interrupted: number;
  let uninterrupted: number;
  let byJob: number;

  const db = () => database.db;
  const repository = () => createReadingsRepository(db());

  /** What earlier versions stored for a participant: rows, most of them by a sync. */
  async function storeAsRows(participantId: number) {
    const base = {
      participantId,
      teamId,
      brand: 'Fitbit' as const,
      upstream: 'google-health' as const,
    };
    // 5-second heart rate over 5 hours with a gap and jittered steps, offsets CET then (from
    // the fourth hour) none.
    const heart: ReadingInput[] = Array.from({ length: 3000 }, (_, index) => ({
      ...base,
      metricKey: 'heart_rate',
      recordedAt: new Date(
        START + index * 5000 + (index % 7) * 13 + (index > 1500 ? 1_800_000 : 0),
      ),
      value: 55 + ((index * 31) % 80) + (index % 3) / 4,
      utcOffsetMinutes: index < 2000 ? 60 : null,
      dataSource: 'Pixel Watch',
    }));
    // An hour where a second watch also reported: two data sources, so it stays rows.
    const mixed: ReadingInput[] = Array.from({ length: 40 }, (_, index) => ({
      ...base,
      metricKey: 'heart_rate',
      recordedAt: new Date(Date.parse('2026-11-10T08:00:00Z') + index * 60_000),
      value: 70,
      utcOffsetMinutes: 60,
      dataSource: index % 2 === 0 ? 'Pixel Watch' : 'Charge 6',
    }));
    const steps: ReadingInput = {
      ...base,
      metricKey: 'steps',
      recordedAt: new Date('2026-11-10T00:00:00Z'),
      value: 8000,
    };
    await readings.store([...heart, ...mixed, steps]);
    await db().execute(
      sql`update device_readings set sync_run_id = 7 where participant_id = ${participantId}`,
    );
    // A seeded reading (no sync run) stays a row.
    await readings.store([
      {
        ...base,
        upstream: 'demo',
        metricKey: 'heart_rate',
        recordedAt: new Date(START - 3_600_000),
        value: 64,
        utcOffsetMinutes: 60,
      },
    ]);
  }

  const snapshot = async (participantId: number) => ({
    readings: (
      await readings.read({
        teamId,
        participantId,
        from: new Date(START - 86_400_000),
        to: new Date(START + 2 * 86_400_000),
      })
    ).map(({ participantId: _, syncedAt: __, ...rest }) => rest),
    days: (
      await db().execute(sql`
        select metric_key, day, readings, minutes, value_sum, first_at, last_at
          from device_reading_days where participant_id = ${participantId} order by metric_key, day`)
    ).rows,
  });
  const chunksOf = async (participantId: number) =>
    (
      await db().execute(sql`
        select period_start, last_at, steps_ms, value, utc_offset_minutes, upstream, data_source, sync_run_id
          from device_reading_chunks where participant_id = ${participantId} order by period_start`)
    ).rows;
  const rowsOf = async (participantId: number) =>
    (
      await db().execute(sql`
        select metric_key, recorded_at, value, data_source, sync_run_id from device_readings
         where participant_id = ${participantId} order by metric_key, recorded_at`)
    ).rows;

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 3);
    teamId = fixture.teamId;
    [interrupted, uninterrupted, byJob] = fixture.participantIds as [number, number, number];
  });
  // Every write, mirror delete, purge and migration keeps the totals (decision 0257).
  afterEach(async () => {
    const { kept, counted } = await keptTotalsAndCounts(database.db);
    expect(Object.keys(counted).length).toBeGreaterThan(0);
    expect(kept).toEqual(counted);
  });
  afterAll(() => database?.close());

  it('killed after its third batch, resumes to the end state of an uninterrupted run; readings unchanged', async () => {
    await storeAsRows(interrupted);
    const before = await snapshot(interrupted);
    const killed = chunkStoredRows(db(), repository(), {
      batchRows: 500,
      afterBatch: (batch) => {
        if (batch === 3) throw new Error('killed');
      },
    });
    await expect(killed).rejects.toThrow('killed');
    // Half-way: some hours moved, the rest still rows; every reading still there once.
    const partialChunks = await chunksOf(interrupted);
    expect(partialChunks.length).toBeGreaterThan(0);
    expect(await snapshot(interrupted)).toEqual(before);
    const resumed = await chunkStoredRows(db(), repository(), { batchRows: 500 });
    expect(resumed.done).toBe(true);
    expect(await snapshot(interrupted)).toEqual(before);
    // A second run finds nothing left to move.
    expect(await chunkStoredRows(db(), repository(), { batchRows: 500 })).toMatchObject({
      moved: 0,
      done: true,
    });

    await storeAsRows(uninterrupted);
    const beforeOther = await snapshot(uninterrupted);
    const whole = await chunkStoredRows(db(), repository(), { batchRows: 500 });
    // Skipped: the mixed hour of each participant (the first one's is looked at again).
    expect(whole).toMatchObject({ moved: 3000, skipped: 2, done: true });
    expect(await snapshot(uninterrupted)).toEqual(beforeOther);

    // The same end state: the same chunks and the same rows left (the mixed hour, the
    // seeded reading, the steps).
    const chunks = await chunksOf(uninterrupted);
    expect(chunks.length).toBe(5);
    expect(await chunksOf(interrupted)).toEqual(chunks);
    const left = await rowsOf(uninterrupted);
    expect(left).toHaveLength(40 + 1 + 1);
    expect(await rowsOf(interrupted)).toEqual(left);

    // The summary is still what the readings give from scratch.
    const maintained = await db().execute(sql`
      select participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at
        from device_reading_days where team_id = ${teamId} order by 1, 3, 4`);
    const scratch = await db().execute(sql`
      select * from (${readingDaysFromScratch()}) s where team_id = ${teamId} order by 1, 3, 4`);
    expect(maintained.rows).toEqual(scratch.rows);

    // A sync of the same points after the migration rewrites nothing.
    const versions = async () =>
      (
        await db().execute(
          sql`select xmin::text as v from device_reading_chunks where participant_id = ${uninterrupted} order by period_start`,
        )
      ).rows;
    const was = await versions();
    const again = before.readings
      .filter(
        (reading) => reading.metricKey === 'heart_rate' && reading.dataSource === 'Pixel Watch',
      )
      .filter((reading) => {
        const hour = reading.recordedAt.toISOString().slice(0, 13);
        return hour !== '2026-11-10T08';
      })
      .map((reading) => ({
        participantId: uninterrupted,
        teamId,
        brand: reading.brand,
        metricKey: reading.metricKey,
        recordedAt: reading.recordedAt,
        value: reading.value,
        utcOffsetMinutes: reading.utcOffsetMinutes,
        upstream: reading.upstream,
        dataSource: reading.dataSource,
      }));
    expect(again).toHaveLength(3000);
    expect(await readings.store(again, { syncRunId: 8 })).toMatchObject({
      inserted: 0,
      updated: 0,
    });
    expect(await versions()).toEqual(was);
  });

  it('runs as the daily job sync.chunk-rows, in the worker', async () => {
    await storeAsRows(byJob);
    const before = await snapshot(byJob);
    const job = createSyncJobs().find((definition) => definition.name === SYNC_CHUNK_ROWS_JOB)!;
    expect(job.cron).toBeDefined();
    const logged: object[] = [];
    const result = await job.handle({ id: 'chunk-rows-1', name: job.name, data: {} } as never, {
      database,
      logger: { info: (entry) => logged.push(entry), warn: () => {}, error: () => {} },
      boss: undefined as never,
      services: undefined as never,
    });
    expect(result).toMatchObject({ moved: 3000, done: true });
    expect(logged).toHaveLength(1);
    expect(await chunksOf(byJob)).toHaveLength(5);
    expect(await snapshot(byJob)).toEqual(before);
  });
});
