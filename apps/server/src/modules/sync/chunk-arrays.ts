import { sql, type SQL } from 'drizzle-orm';
import type { ChunkPoint } from './chunk-merge';

/**
 * A chunk's points as the columns decision 0220 stores (issue 29): `steps_ms integer[]` (the
 * first point's milliseconds since the period's start, then each point's since the one
 * before: regular sampling repeats one step, which TOAST's pglz compresses to almost
 * nothing, where offsets from the start never repeat), `value double precision[]`,
 * `utc_offset_minutes smallint[]` and `value_json jsonb[]` (named as the row's columns they
 * hold the elements of; `value_json` null when no point has JSON, as heart rate never does).
 */
export type ChunkArrays = {
  stepsMs: number[];
  values: (number | null)[];
  utcOffsets: (number | null)[];
  valueJsons: unknown[] | null;
};

/** The longest period a chunk may span: its steps must fit a PostgreSQL `integer`. */
const MAX_STEP_MS = 2_147_483_647;

/**
 * The columns of a chunk starting at `periodStartMs`. Throws a RangeError for points out of
 * order, repeated, before the start, or a step past `integer` (a caller bug, never data).
 */
export function toChunkArrays(periodStartMs: number, points: readonly ChunkPoint[]): ChunkArrays {
  const arrays: ChunkArrays = { stepsMs: [], values: [], utcOffsets: [], valueJsons: [] };
  let anyJson = false;
  let previous = periodStartMs;
  points.forEach((point, index) => {
    const step = point.at - previous;
    if (!Number.isSafeInteger(point.at) || step < (index === 0 ? 0 : 1) || step > MAX_STEP_MS)
      throw new RangeError(`chunk point ${index} is out of order or outside its period`);
    arrays.stepsMs.push(step);
    arrays.values.push(point.value);
    arrays.utcOffsets.push(point.offset);
    arrays.valueJsons!.push(point.json ?? null);
    if (point.json !== null && point.json !== undefined) anyJson = true;
    previous = point.at;
  });
  if (!anyJson) arrays.valueJsons = null;
  return arrays;
}

/** The points of a chunk row read back in JS (the writer merges them with `mergeChunk`). */
export function fromChunkArrays(periodStartMs: number, arrays: ChunkArrays): ChunkPoint[] {
  let at = periodStartMs;
  return arrays.stepsMs.map((step, index) => {
    at += step;
    const json = arrays.valueJsons?.[index] ?? null;
    return {
      at,
      value: arrays.values[index] ?? null,
      offset: arrays.utcOffsets[index] ?? null,
      ...(json !== null && { json }),
    };
  });
}

/**
 * A chunk's arrays as `saveChunks` sends them: PostgreSQL array input text for `steps_ms`,
 * `value` and `utc_offset_minutes` (each double as float8 input reads it back exactly), and
 * `value_json` as a JSON array (or null), which `jsonbArrayOf` turns into `jsonb[]`.
 */
export function chunkArraysText(arrays: ChunkArrays): {
  s: string;
  v: string;
  o: string;
  j: unknown[] | null;
} {
  return {
    s: `{${arrays.stepsMs.join(',')}}`,
    v: `{${arrays.values.map((value) => (value === null ? 'NULL' : doubleText(value))).join(',')}}`,
    o: `{${arrays.utcOffsets.map((offset) => (offset === null ? 'NULL' : String(offset))).join(',')}}`,
    j: arrays.valueJsons,
  };
}

/** A double as PostgreSQL's float8 input reads it back exactly (JS's shortest round trip). */
function doubleText(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (value === Infinity) return 'Infinity';
  if (value === -Infinity) return '-Infinity';
  return Object.is(value, -0) ? '-0' : String(value);
}

/**
 * `jsonb[]` from the jsonb array `json` (null stays null), element by element in order; a
 * JSON null element becomes an SQL NULL, as a point without JSON is one in `value_json`.
 */
export function jsonbArrayOf(json: SQL): SQL {
  return sql`case when ${json} is null then null else array(
    select case when jsonb_typeof(x.e) = 'null' then null else x.e end
      from jsonb_array_elements(${json}) with ordinality as x(e, n) order by x.n) end`;
}

/**
 * The points of the chunk row `chunk` (an alias with `period_start`, `steps_ms`, `value`,
 * `utc_offset_minutes`, `value_json`) as rows `recorded_at`, `value`, `utc_offset_minutes`,
 * `value_json` (`unnest` of several arrays pads a null `value_json` with nulls), for a
 * `cross join lateral`: what lets SQL readers (the day summary, the database's CSV, pages)
 * read chunks beside `device_readings` rows. The running sum restarts per chunk because
 * the lateral subquery sees one chunk row at a time.
 */
export function chunkPointsSql(chunk: string): SQL {
  const alias = sql.identifier(chunk);
  return sql`(
    select ${alias}.period_start + (sum(p.step) over (order by p.n)) * interval '1 millisecond' as recorded_at,
           p.value, p.utc_offset_minutes, p.value_json
      from unnest(${alias}.steps_ms, ${alias}.value, ${alias}.utc_offset_minutes, ${alias}.value_json)
           with ordinality as p(step, value, utc_offset_minutes, value_json, n)
  )`;
}
