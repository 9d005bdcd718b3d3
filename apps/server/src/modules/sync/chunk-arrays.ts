import { sql, type SQL } from 'drizzle-orm';
import type { ChunkPoint } from './chunk-merge';

/**
 * A chunk's points as the columns decision 0220 stores (issue 29): `steps_ms integer[]` (the
 * first point's milliseconds since the period's start, then each point's since the one
 * before: regular sampling repeats one step, which TOAST's pglz compresses to almost
 * nothing, where offsets from the start never repeat), `value double precision[]` and
 * `utc_offset_minutes smallint[]` (named as the row's columns they hold the elements of).
 */
export type ChunkArrays = {
  stepsMs: number[];
  values: number[];
  utcOffsets: (number | null)[];
};

/** The longest period a chunk may span: its steps must fit a PostgreSQL `integer`. */
const MAX_STEP_MS = 2_147_483_647;

/**
 * The columns of a chunk starting at `periodStartMs`. Throws a RangeError for points out of
 * order, repeated, before the start, or a step past `integer` (a caller bug, never data).
 */
export function toChunkArrays(periodStartMs: number, points: readonly ChunkPoint[]): ChunkArrays {
  const arrays: ChunkArrays = { stepsMs: [], values: [], utcOffsets: [] };
  let previous = periodStartMs;
  points.forEach((point, index) => {
    const step = point.at - previous;
    if (!Number.isSafeInteger(point.at) || step < (index === 0 ? 0 : 1) || step > MAX_STEP_MS)
      throw new RangeError(`chunk point ${index} is out of order or outside its period`);
    arrays.stepsMs.push(step);
    arrays.values.push(point.value);
    arrays.utcOffsets.push(point.offset);
    previous = point.at;
  });
  return arrays;
}

/** The points of a chunk row read back in JS (the writer merges them with `mergeChunk`). */
export function fromChunkArrays(periodStartMs: number, arrays: ChunkArrays): ChunkPoint[] {
  let at = periodStartMs;
  return arrays.stepsMs.map((step, index) => {
    at += step;
    return { at, value: arrays.values[index]!, offset: arrays.utcOffsets[index] ?? null };
  });
}

/**
 * The points of the chunk row `chunk` (an alias with `period_start`, `steps_ms`, `value`,
 * `utc_offset_minutes`) as rows `recorded_at`, `value`, `utc_offset_minutes`, for a
 * `cross join lateral`: what lets SQL readers (the day summary, the database's CSV, pages)
 * read chunks beside `device_readings` rows. The running sum restarts per chunk because
 * the lateral subquery sees one chunk row at a time.
 */
export function chunkPointsSql(chunk: string): SQL {
  const alias = sql.identifier(chunk);
  return sql`(
    select ${alias}.period_start + (sum(p.step) over (order by p.n)) * interval '1 millisecond' as recorded_at,
           p.value, p.utc_offset_minutes
      from unnest(${alias}.steps_ms, ${alias}.value, ${alias}.utc_offset_minutes)
           with ordinality as p(step, value, utc_offset_minutes, n)
  )`;
}
