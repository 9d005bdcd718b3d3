import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import type { ReadingInput, ReadingsListQuery, ReadingsService } from './readings.service';
import { createParticipants, readingsServiceFor } from './test-support';

const NOW = new Date('2026-11-20T12:00:00Z');
const HOUR = 3_600_000;

/**
 * The stored-readings table's page read from a window of recent days (decision 0201) equals
 * the page of the whole history: newest first and by time descending, on every page, with
 * the summary counting another brand's readings too (the window then holds too few of the
 * brand and the page falls back), with metric and time filters, and with the whole total.
 */
describe(`stored-readings pages read from a recent window (${process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite'})`, () => {
  let database: Database;
  let readings: ReadingsService;
  let teamId: number;
  let participantId: number;
  const stored: ReadingInput[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    readings = readingsServiceFor(database.db, () => NOW);
    const fixture = await createParticipants(database.db, 1);
    teamId = fixture.teamId;
    participantId = fixture.participantIds[0]!;
    const start = Date.UTC(2026, 8, 1);
    for (let hour = 0; hour < 60 * 24; hour += 1) {
      const at = start + hour * HOUR;
      const base = { participantId, teamId, upstream: 'google-health' as const };
      stored.push({
        ...base,
        brand: 'Fitbit',
        metricKey: 'heart_rate',
        recordedAt: new Date(at),
        value: 60 + (hour % 30),
        utcOffsetMinutes: 60,
      });
      if (hour % 3 === 0)
        stored.push({
          ...base,
          brand: 'Fitbit',
          metricKey: 'steps',
          recordedAt: new Date(at),
          value: hour % 500,
        });
      // Another brand's readings, denser in the last ten days: the summary counts them too.
      if (hour % 2 === 0 || hour > 50 * 24)
        stored.push({
          ...base,
          brand: 'Omron',
          upstream: 'omron',
          metricKey: 'pulse',
          recordedAt: new Date(at + 60_000),
          value: 70,
        });
    }
    await readings.store(stored);
  });
  afterAll(() => database?.close());

  /** The page computed from every stored reading of the scope, in the list's order. */
  function expected(
    query: ReadingsListQuery,
    scope: { metricKeys?: string[]; from?: Date; to?: Date } = {},
  ) {
    const rows = stored
      .filter(
        (row) =>
          row.brand === 'Fitbit' &&
          (!scope.metricKeys || scope.metricKeys.includes(row.metricKey)) &&
          (!scope.from || row.recordedAt >= scope.from) &&
          (!scope.to || row.recordedAt < scope.to),
      )
      .sort(
        (a, b) =>
          b.recordedAt.getTime() - a.recordedAt.getTime() ||
          (a.metricKey < b.metricKey ? -1 : a.metricKey > b.metricKey ? 1 : 0),
      );
    const { index, size } = query.page!;
    return {
      total: rows.length,
      rows: rows
        .slice(index * size, (index + 1) * size)
        .map((row) => [row.metricKey, row.recordedAt.toISOString(), row.value]),
    };
  }

  async function actual(
    query: ReadingsListQuery,
    scope: { metricKeys?: string[]; from?: Date; to?: Date } = {},
  ) {
    const page = await readings.page({ teamId, participantId, brand: 'Fitbit', ...scope }, query);
    return {
      total: page.total,
      rows: page.rows.map((row) => [row.metricKey, row.recordedAt.toISOString(), row.value]),
    };
  }

  it('answers every page as the whole history does, newest first and by time descending', async () => {
    const total = expected({ page: { index: 0, size: 50 }, sort: null, filter: '' }).total;
    for (const size of [10, 50]) {
      const last = Math.ceil(total / size) - 1;
      for (const index of [0, 1, 7, Math.floor(last / 2), last - 1, last, last + 1]) {
        for (const sort of [null, { by: 'recordedAt' as const, desc: true }]) {
          const query = { page: { index, size }, sort, filter: '' };
          expect(await actual(query)).toEqual(expected(query));
        }
      }
    }
  });

  it('keeps metric and time filters, and the total of the whole scope', async () => {
    const scopes = [
      { metricKeys: ['steps'] },
      { metricKeys: ['heart_rate', 'steps'], to: new Date(Date.UTC(2026, 9, 10)) },
      { from: new Date(Date.UTC(2026, 9, 20)), to: new Date(Date.UTC(2026, 9, 25, 7)) },
    ];
    for (const scope of scopes) {
      for (const index of [0, 3, 40]) {
        const query = { page: { index, size: 25 }, sort: null, filter: '' };
        expect(await actual(query, scope)).toEqual(expected(query, scope));
      }
    }
  });
});
