import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../db/client';
import { createTestDatabase } from '../../test/test-database';
import {
  chunkArraysText,
  chunkPointsSql,
  fromChunkArrays,
  jsonbArrayOf,
  toChunkArrays,
} from './chunk-arrays';
import type { ChunkPoint } from './chunk-merge';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const HOUR = 3_600_000;
const FIRST_HOUR = Date.UTC(2026, 10, 20, 9);

/** A deterministic pseudo-random source (mulberry32): every run checks the same cases. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** An hour of points: regular 5 s steps, jitter down to 1 ms, gaps; any finite double. */
function anyHour(next: () => number, start: number): ChunkPoint[] {
  const points: ChunkPoint[] = [];
  const offsets = [60, -300, 330, null];
  let at = start + Math.floor(next() * 10_000);
  while (at < start + HOUR && points.length < 800) {
    const roll = next();
    const value =
      roll < 0.6
        ? 40 + Math.floor(next() * 150)
        : roll < 0.9
          ? Math.round(next() * 4000) / 10
          : (next() - 0.5) * 1e12;
    points.push({ at, value, offset: offsets[Math.floor(next() * offsets.length)]! });
    const step = next();
    at += step < 0.8 ? 5000 : step < 0.95 ? 1 + Math.floor(next() * 9000) : 600_000;
  }
  return points;
}

/**
 * A day of CGM readings as Dexcom's egv is stored (decision 0270): every 5 minutes, a value
 * or none, JSON with trend and status (text that needs escaping too) or none.
 */
function anyCgmDay(next: () => number, start: number): ChunkPoint[] {
  const points: ChunkPoint[] = [];
  const trends = ['flat', 'singleUp', 'doubleDown', null];
  for (let at = start + Math.floor(next() * 300_000); at < start + 86_400_000; at += 300_000) {
    const roll = next();
    const json =
      roll < 0.8
        ? { trend: trends[Math.floor(next() * trends.length)]!, status: roll < 0.1 ? 'high' : null }
        : roll < 0.9
          ? { note: 'quote " backslash \\ brace } comma , null', nested: { a: [1, null] } }
          : null;
    points.push({
      at,
      value: next() < 0.1 ? null : 40 + Math.floor(next() * 360),
      offset: -300,
      ...(json && { json }),
    });
  }
  return points;
}

describe(`chunk arrays (${MODE})`, () => {
  let database: Database;

  beforeAll(async () => {
    database = await createTestDatabase();
    // The columns decision 0220 gives the chunk table; a scratch table of this test.
    await database.db.execute(sql`
      create table chunk_arrays_test (id integer primary key, period_start timestamptz not null,
        steps_ms integer[] not null, value double precision[] not null,
        utc_offset_minutes smallint[] not null, value_json jsonb[])`);
  });
  afterAll(() => database?.close());

  it('SQL reads back every point written from JS, chunk by chunk (40 generated hours of heart rate, 6 days of CGM)', async () => {
    const next = random(220);
    const written = new Map<number, { start: number; points: ChunkPoint[] }>();
    for (let id = 0; id < 46; id += 1) {
      const start = id < 40 ? FIRST_HOUR + id * HOUR : Date.UTC(2026, 10, 1 + id - 40);
      const points = id < 40 ? anyHour(next, start) : anyCgmDay(next, start);
      const arrays = toChunkArrays(start, points);
      // The JS read of the same columns gives the points back before any database does.
      expect(fromChunkArrays(start, arrays)).toEqual(points);
      expect(arrays.valueJsons === null).toBe(id < 40);
      written.set(id, { start, points });
      // As saveChunks sends them.
      const text = chunkArraysText(arrays);
      await database.db.execute(sql`
        insert into chunk_arrays_test
        select ${id}, ${new Date(start).toISOString()}::timestamptz, ${text.s}::integer[],
               ${text.v}::double precision[], ${text.o}::smallint[],
               ${jsonbArrayOf(sql`${text.j === null ? null : JSON.stringify(text.j)}::jsonb`)}`);
    }
    const result = await database.db.execute<{
      id: number;
      at: string;
      value: number | null;
      offset: number | null;
      json: unknown;
    }>(sql`
      select c.id, to_char(p.recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as at,
             p.value, p.utc_offset_minutes as offset, p.value_json as json
        from chunk_arrays_test c cross join lateral ${chunkPointsSql('c')} p
       order by c.id, p.recorded_at`);
    const read = new Map<number, ChunkPoint[]>();
    for (const row of result.rows) {
      const points = read.get(Number(row.id)) ?? [];
      const json = typeof row.json === 'string' ? (JSON.parse(row.json) as unknown) : row.json;
      points.push({
        at: Date.parse(row.at),
        value: row.value === null ? null : Number(row.value),
        offset: row.offset === null ? null : Number(row.offset),
        ...(json !== null && json !== undefined && { json }),
      });
      read.set(Number(row.id), points);
    }
    expect(read.size).toBe(written.size);
    for (const [id, { points }] of written) expect(read.get(id)).toEqual(points);
  });

  it('refuses points out of order, repeated, before the period or too far apart', () => {
    const point = (at: number): ChunkPoint => ({ at, value: 60, offset: null });
    expect(() =>
      toChunkArrays(FIRST_HOUR, [point(FIRST_HOUR + 10), point(FIRST_HOUR + 5)]),
    ).toThrow(RangeError);
    expect(() => toChunkArrays(FIRST_HOUR, [point(FIRST_HOUR + 5), point(FIRST_HOUR + 5)])).toThrow(
      RangeError,
    );
    expect(() => toChunkArrays(FIRST_HOUR, [point(FIRST_HOUR - 1)])).toThrow(RangeError);
    expect(() => toChunkArrays(FIRST_HOUR, [point(FIRST_HOUR + 2 ** 31)])).toThrow(RangeError);
    expect(toChunkArrays(FIRST_HOUR, [point(FIRST_HOUR)]).stepsMs).toEqual([0]);
  });
});
