import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { storedReadings } from '../../db/schema';
import { createTestDatabase } from '../../test/test-database';
import type { ReadingInput, ReadingsListScope, ReadingsService } from './readings.service';
import { positionedPage } from './readings-positioned-page';
import { storedReadingsBefore, storedReadingsFrom } from './stored-readings';
import { createParticipants, readingsServiceFor } from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const NOW = new Date('2026-11-20T12:00:00Z');
const MINUTE = 60_000;
const HOUR = 3_600_000;

/**
 * The stored-readings table's pages located by position (decision 0256) equal the pages of
 * the whole scope sorted from scratch (today's query over `stored_readings` with OFFSET):
 * every page, newest and oldest first, over hour chunks of synced heart rate mixed with rows
 * (heart rate written without a sync, steps at the chunks' own instants, another brand's
 * readings), one metric, and a time range (which keeps the sorted read).
 */
describe(`stored-readings pages located by position (${MODE})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let participantId: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 1);
    teamId = fixture.teamId;
    participantId = fixture.participantIds[0]!;
    const base = { participantId, teamId, utcOffsetMinutes: 60 };
    const start = Date.UTC(2026, 10, 1, 6, 30);
    // Synced heart rate every minute for 30 hours, with a gap: 30 hour chunks.
    const synced: ReadingInput[] = [];
    for (let minute = 0; minute < 30 * 60; minute += 1) {
      if (minute >= 600 && minute < 700) continue;
      synced.push({
        ...base,
        brand: 'Fitbit',
        metricKey: 'heart_rate',
        recordedAt: new Date(start + minute * MINUTE),
        value: 55 + (minute % 40),
        upstream: 'google-health',
        dataSource: 'Pixel Watch',
      });
    }
    await readings.store(synced, { syncRunId: 1 });
    const rows: ReadingInput[] = [];
    for (let hour = 0; hour < 40; hour += 1) {
      // Steps at the heart rate's own instants (ties broken by the metric key).
      rows.push({
        ...base,
        brand: 'Fitbit',
        metricKey: 'steps',
        recordedAt: new Date(start + hour * HOUR),
        value: hour * 10,
        upstream: 'google-health',
      });
      // Another brand at the same instants.
      rows.push({
        ...base,
        brand: 'Omron',
        metricKey: 'pulse',
        recordedAt: new Date(start + hour * HOUR),
        value: 70,
        upstream: 'omron',
      });
    }
    // Heart rate as rows (not a sync's) in the days before the chunks.
    for (let index = 0; index < 90; index += 1)
      rows.push({
        ...base,
        brand: 'Fitbit',
        metricKey: 'heart_rate',
        recordedAt: new Date(start - 2 * 86_400_000 + index * 7 * MINUTE),
        value: 60,
        upstream: 'demo',
      });
    await readings.store(rows);
    const chunks = await database.db.execute<{ n: number }>(
      sql`select count(*)::int as n from device_reading_chunks where participant_id = ${participantId}`,
    );
    expect(Number(chunks.rows[0]!.n)).toBe(30);
  });
  afterAll(() => database?.close());

  type Scope = Omit<ReadingsListScope, 'teamId' | 'participantId'>;

  /**
   * Today's query: the scope counted and sorted whole, the page cut with OFFSET. The whole
   * sorted scope is read once per scope and direction and the pages are cut from it: the
   * order is total (instant, then metric key; no two rows of a scope share both), so a slice
   * is the page OFFSET answers, and the ~220 pages compared no longer sort the scope anew.
   */
  async function fromScratch(scope: Scope, index: number, size: number, newestFirst: boolean) {
    const key = JSON.stringify([scope, newestFirst]);
    let whole = sortedScopes.get(key);
    if (!whole) {
      whole = sortedScope(scope, newestFirst);
      sortedScopes.set(key, whole);
    }
    const { total, rows } = await whole;
    return { total, rows: rows.slice(index * size, (index + 1) * size) };
  }
  const sortedScopes = new Map<string, ReturnType<typeof sortedScope>>();

  async function sortedScope(scope: Scope, newestFirst: boolean) {
    const conditions: SQL[] = [
      eq(storedReadings.participantId, participantId),
      eq(storedReadings.teamId, teamId),
      eq(storedReadings.brand, scope.brand),
    ];
    if (scope.metricKeys) conditions.push(inArray(storedReadings.metricKey, [...scope.metricKeys]));
    if (scope.from) conditions.push(storedReadingsFrom('stored_readings', scope.from));
    if (scope.to) conditions.push(storedReadingsBefore('stored_readings', scope.to));
    const [counted] = await database.db
      .select({ n: sql<number>`count(*)::int`.mapWith(Number) })
      .from(storedReadings)
      .where(and(...conditions));
    const rows = await database.db
      .select({
        metricKey: storedReadings.metricKey,
        recordedAt: storedReadings.recordedAt,
        value: storedReadings.value,
        upstream: storedReadings.upstream,
        syncRunId: storedReadings.syncRunId,
      })
      .from(storedReadings)
      .where(and(...conditions))
      .orderBy(
        newestFirst ? desc(storedReadings.recordedAt) : asc(storedReadings.recordedAt),
        asc(storedReadings.metricKey),
      );
    expect(rows).toHaveLength(counted!.n);
    const tied = rows.filter(
      (row, at) =>
        at > 0 &&
        row.metricKey === rows[at - 1]!.metricKey &&
        row.recordedAt.getTime() === rows[at - 1]!.recordedAt.getTime(),
    );
    expect(tied, 'rows the order leaves tied').toEqual([]);
    return { total: counted!.n, rows: rows.map(shown) };
  }

  const shown = (row: {
    metricKey: string;
    recordedAt: Date;
    value: number | null;
    upstream: string;
    syncRunId: number | null;
  }) => [row.metricKey, row.recordedAt.toISOString(), row.value, row.upstream, row.syncRunId];

  async function answered(scope: Scope, index: number, size: number, newestFirst: boolean) {
    const page = await readings.page(
      { teamId, participantId, ...scope },
      {
        page: { index, size },
        sort: newestFirst ? null : { by: 'recordedAt', desc: false },
        filter: '',
      },
    );
    return { total: page.total, rows: page.rows.map(shown) };
  }

  it('answers every page as the whole sorted scope does, rows and chunks mixed', async () => {
    for (const scope of [
      { brand: 'Fitbit' as const },
      { brand: 'Fitbit' as const, metricKeys: ['heart_rate'] },
      { brand: 'Omron' as const },
    ]) {
      for (const size of [50, 7]) {
        const { total } = await fromScratch(scope, 0, size, true);
        expect(total).toBeGreaterThan(0);
        const last = Math.ceil(total / size) - 1;
        const indexes =
          size === 50
            ? Array.from({ length: last + 2 }, (_, index) => index)
            : [0, 1, 8, Math.floor(last / 2), last - 3, last - 1, last, last + 1];
        for (const index of indexes) {
          for (const newestFirst of [true, false]) {
            expect(await answered(scope, index, size, newestFirst)).toEqual(
              await fromScratch(scope, index, size, newestFirst),
            );
          }
        }
      }
    }
  });

  it('locates every page of the mixed scope without the whole sort', async () => {
    const scope = { teamId, participantId, brand: 'Fitbit' as const };
    const { total } = await fromScratch(scope, 0, 50, true);
    for (let index = 0; index * 50 < total; index += 1) {
      for (const newestFirst of [true, false]) {
        const page = await positionedPage(
          database.db,
          scope,
          { index, size: 50 },
          newestFirst,
          total,
        );
        expect(page, `page ${index}`).not.toBeNull();
        expect({ total: page!.total, rows: page!.rows.map(shown) }).toEqual(
          await fromScratch(scope, index, 50, newestFirst),
        );
      }
    }
  });

  it('keeps the sorted read, with the same answers, within a time range', async () => {
    const scope = {
      brand: 'Fitbit' as const,
      from: new Date(Date.UTC(2026, 10, 1, 9, 15)),
      to: new Date(Date.UTC(2026, 10, 2, 3)),
    };
    for (const index of [0, 3, 10, 20, 40]) {
      for (const newestFirst of [true, false]) {
        expect(await answered(scope, index, 25, newestFirst)).toEqual(
          await fromScratch(scope, index, 25, newestFirst),
        );
      }
    }
  });
});
