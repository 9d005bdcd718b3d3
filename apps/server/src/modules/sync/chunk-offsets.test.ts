import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import type { ReadingInput, ReadingsService } from './readings.service';
import { createParticipants, readingsServiceFor } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-12T12:00:00Z');

/**
 * The offsets that decide a participant's local days (decisions 0180, 0182) read from both
 * stores: a chunk's point found by its instant, also in the middle of a chunk (a local
 * midnight at a half hour of UTC), and a row's.
 */
describe(`UTC offsets of chunked and row readings (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let ids: number[];

  const heartRate = (
    participantId: number,
    start: string,
    count: number,
    utcOffsetMinutes: number,
  ): ReadingInput[] =>
    Array.from({ length: count }, (_, index) => ({
      participantId,
      teamId,
      brand: 'Fitbit',
      metricKey: 'heart_rate',
      recordedAt: new Date(Date.parse(start) + index * 5000),
      value: 60 + (index % 30),
      utcOffsetMinutes,
      upstream: 'google-health',
      dataSource: 'Pixel Watch',
    }));

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    ({ teamId, participantIds: ids } = await createParticipants(database.db, 2));
  });
  afterAll(() => database?.close());

  it('finds a day’s first and last offset inside a chunk, and the current offset in either store', async () => {
    const [chunked, rows] = ids as [number, number];
    // 17:00–18:29:55 UTC at +5:30 (local 22:30–23:59:55 on 10 November), then from 18:30
    // at +5:45 (local 00:15 on 11 November): both local days begin or end mid-hour.
    await readings.store(
      [
        ...heartRate(chunked, '2026-11-10T17:00:00Z', 1080, 330),
        ...heartRate(chunked, '2026-11-10T18:30:00Z', 360, 345),
      ],
      { syncRunId: 1 },
    );
    // Stored by no sync: rows, at UTC−5.
    await readings.store(heartRate(rows, '2026-11-10T15:00:00Z', 12, -300));
    const stores = await database.db.execute<{ chunks: number; rows: number }>(sql`
      select (select count(*)::int from device_reading_chunks where participant_id = ${chunked}) as chunks,
             (select count(*)::int from device_readings where participant_id = ${rows}) as rows`);
    expect(stores.rows[0]).toEqual({ chunks: 2, rows: 12 });

    expect(
      await readings.dayOffsets(teamId, chunked, { start: '2026-11-10', end: '2026-11-11' }),
    ).toEqual([
      { day: '2026-11-10', start: 330, end: 330 },
      { day: '2026-11-11', start: 345, end: 345 },
    ]);
    const current = await readings.currentOffsets(teamId, ids, NOW);
    expect(Object.fromEntries(current)).toEqual({ [chunked]: 345, [rows]: -300 });
    // Before the later day's readings: the earlier day's last point, in the middle of its chunk.
    const earlier = await readings.currentOffsets(
      teamId,
      [chunked],
      new Date('2026-11-10T18:29:59Z'),
    );
    expect(earlier.get(chunked)).toBe(330);
  });
});
