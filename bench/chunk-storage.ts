/**
 * How to store high-rate streams (issue 29, decision 0220): one participant-year of 5-second
 * heart rate stored each way on PostgreSQL, in a scratch database of its own (created and
 * dropped here; TEST_DATABASE_URL, else DATABASE_URL, else the local server):
 * - rows as today (`device_readings`' columns and key; `--row-days` days, 30 by default,
 *   since bytes per row do not depend on how many);
 * - one row per participant × metric × brand × UTC day, and per hour, holding the points as
 *   arrays (`integer[]` seconds from the chunk's start, `smallint[]` values) or as one
 *   `bytea` in the chunk codec (reading-chunk-codec.ts), each with TOAST compression pglz
 *   and lz4, plus the day summary's rows (one per local day).
 * For each: bytes per reading (pg_total_relation_size, indexes and TOAST included), the time
 * to write the year (encoding included), to read one day and decode it into points, and to
 * merge 180 new points (a 15-minute sync) into the newest chunk (read, decode, merge, encode,
 * write). Figures, never assertions. `node --import tsx bench/chunk-storage.ts
 * [--days=365] [--row-days=30] [--jitter] [--step-seconds=5] [--toast-target=N]`
 * (`--jitter`: steps of 1–9 s instead of a fixed step).
 */
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { decodeChunk, encodeChunk, type ChunkPoints } from './support/reading-chunk-codec';

const DAYS = numberArgument('days', 365);
const ROW_DAYS = numberArgument('row-days', 30);
const JITTER = process.argv.includes('--jitter');
/**
 * `--toast-target=N`: the chunk tables' `toast_tuple_target` (default 2032 bytes). TOAST
 * compresses a row's largest values only until the row fits the target, so an hour's
 * `integer[]` times (~2.9 kB) stay uncompressed once the values beside them compressed.
 */
const TOAST_TARGET = numberArgument('toast-target', 0);
/** `--step-seconds=60`: a minute stream (intraday steps, minute heart rate) instead. */
const STEP_SECONDS = numberArgument('step-seconds', 5);
const START = Date.UTC(2025, 10, 1);
const DAY = 86_400_000;
const HOUR = 3_600_000;
const OFFSET_MINUTES = 60;
const READ_RUNS = 20;
/** The last 6 hours are not stored with the year: the 15-minute syncs add them. */
const HELD_BACK_FROM = START + DAYS * DAY - 6 * HOUR;

type Period = 'day' | 'hour';
/**
 * `arrays`: `integer[]` seconds from the chunk's start and `smallint[]` bpm (what heart rate
 * needs); `wide arrays`: `integer[]` milliseconds, `double precision[]` values and
 * `smallint[]` UTC offsets (lossless for any stream, what SQL readers can `unnest`);
 * `step arrays`: the same with each point's ms since the previous one (the first: since the
 * chunk's start) instead of since the start — steps repeat, so TOAST compresses them, where
 * offsets from the start do not compress (SQL reads them with a running `sum() over`); `codec`: one `bytea`.
 */
type Layout = 'arrays' | 'wide arrays' | 'step arrays' | 'codec';

function numberArgument(name: string, fallback: number): number {
  const found = process.argv.find((argument) => argument.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
}

function serverUrl(): string {
  return (
    process.env.TEST_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres'
  );
}

/** A deterministic pseudo-random source (mulberry32), so every run stores the same year. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/**
 * One participant-year: worn about 22 h a day (one to three off-wrist gaps of 10–90
 * minutes), a sample every 5 s (or 1–9 s with --jitter) while worn, integer bpm as a
 * bounded random walk (what Google Health answers for intraday heart rate).
 */
function heartRateYear(): ChunkPoints {
  const next = random(29);
  const times: number[] = [];
  const values: number[] = [];
  let bpm = 70;
  for (let day = 0; day < DAYS; day += 1) {
    const dayStart = START + day * DAY;
    const gaps = Array.from({ length: 1 + Math.floor(next() * 3) }, () => {
      const from = dayStart + Math.floor(next() * 86_400) * 1000;
      return [from, from + (10 + Math.floor(next() * 80)) * 60_000] as const;
    });
    let at = dayStart;
    while (at < dayStart + DAY) {
      const gap = gaps.find(([from, to]) => at >= from && at < to);
      if (gap) {
        at = gap[1];
        continue;
      }
      bpm = Math.min(185, Math.max(42, bpm + Math.round((next() - 0.5) * 4)));
      times.push(at);
      values.push(bpm);
      at += JITTER ? 1000 * (1 + Math.floor(next() * 9)) : STEP_SECONDS * 1000;
    }
  }
  return { times, values, offsets: times.map(() => OFFSET_MINUTES) };
}

/** The points of [from, to) (times sorted). */
function slice(points: ChunkPoints, from: number, to: number): ChunkPoints {
  const first = lowerBound(points.times, from);
  const end = lowerBound(points.times, to);
  return {
    times: points.times.slice(first, end),
    values: points.values.slice(first, end),
    offsets: points.offsets.slice(first, end),
  };
}

function lowerBound(sorted: readonly number[], target: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (sorted[middle]! < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function relationBytes(client: pg.Client, table: string): Promise<number> {
  const result = await client.query<{ bytes: string }>(
    `select pg_total_relation_size($1::regclass) as bytes`,
    [table],
  );
  return Number(result.rows[0]!.bytes);
}

/** The day summary of decision 0058 for the participant-year: one row per local day. */
async function daySummaryBytes(client: pg.Client): Promise<number> {
  await client.query(`
    create table reading_days (participant_id integer not null, team_id integer not null,
      metric_key text not null, day date not null, readings integer not null,
      minutes integer not null, value_sum double precision, first_at timestamptz not null,
      last_at timestamptz not null,
      primary key (participant_id, team_id, metric_key, day))`);
  await client.query(
    `insert into reading_days
       select 1, 1, 'heart_rate', d::date, 17000, 1300, 1200000, d, d + interval '1 day'
         from generate_series($1::timestamptz, $2::timestamptz, interval '1 day') d`,
    [new Date(START).toISOString(), new Date(START + (DAYS - 1) * DAY).toISOString()],
  );
  return relationBytes(client, 'reading_days');
}

async function rowsAsToday(client: pg.Client, year: ChunkPoints) {
  await client.query(`
    create type brand as enum ('fitbit', 'omron', 'dexcom');
    create table readings_rows (participant_id integer not null, team_id integer not null,
      metric_key text not null, recorded_at timestamptz not null, brand brand not null,
      end_at timestamptz, utc_offset_minutes smallint, value double precision,
      value_json jsonb, upstream text not null, data_source text, sync_run_id bigint,
      synced_at timestamptz not null default now(),
      primary key (participant_id, team_id, metric_key, recorded_at, brand))`);
  const rows = slice(year, START, START + ROW_DAYS * DAY);
  const began = performance.now();
  await pipeline(
    Readable.from(
      (function* () {
        for (let index = 0; index < rows.times.length; index += 1) {
          yield `1\t1\theart_rate\t${new Date(rows.times[index]!).toISOString()}\tfitbit\t\\N\t${OFFSET_MINUTES}\t${rows.values[index]}\t\\N\tgoogle_health\tfitbit-charge-6\t1\n`;
        }
      })(),
    ),
    client.query(
      copyFrom(
        `copy readings_rows (participant_id, team_id, metric_key, recorded_at, brand, end_at,
           utc_offset_minutes, value, value_json, upstream, data_source, sync_run_id) from stdin`,
      ),
    ),
  );
  const writeMs = performance.now() - began;
  await client.query('vacuum analyze readings_rows');
  const bytes = await relationBytes(client, 'readings_rows');
  const dayStart = START + Math.floor(ROW_DAYS / 2) * DAY;
  const reads: number[] = [];
  for (let run = 0; run < READ_RUNS; run += 1) {
    const t0 = performance.now();
    const result = await client.query(
      `select recorded_at, value, utc_offset_minutes from readings_rows
        where participant_id = 1 and team_id = 1 and metric_key = 'heart_rate'
          and recorded_at >= $1 and recorded_at < $2 order by recorded_at`,
      [new Date(dayStart).toISOString(), new Date(dayStart + DAY).toISOString()],
    );
    if (result.rows.length === 0) throw new Error('no rows read');
    reads.push(performance.now() - t0);
  }
  return {
    label: 'rows (today)',
    bytesPerReading: bytes / rows.times.length,
    writeMsPerMillion: (writeMs / rows.times.length) * 1e6,
    readDayMs: median(reads),
    mergeMs: null as number | null,
  };
}

function chunkTableSql(table: string, layout: Layout, compression: string): string {
  const points =
    layout === 'codec'
      ? `points bytea not null`
      : layout === 'arrays'
        ? `seconds integer[] not null, bpm smallint[] not null`
        : `seconds integer[] not null, bpm double precision[] not null,
           utc_offsets smallint[] not null`;
  return `create table ${table} (participant_id integer not null, team_id integer not null,
      metric_key text not null, brand brand not null, period_start timestamptz not null,
      point_count integer not null, ${points}, upstream text not null, data_source text,
      sync_run_id bigint, synced_at timestamptz not null default now(),
      primary key (participant_id, team_id, metric_key, brand, period_start))
      ${TOAST_TARGET ? `with (toast_tuple_target = ${TOAST_TARGET})` : ''};
    alter table ${table} alter column ${layout === 'codec' ? 'points' : 'seconds'} set compression ${compression};
    ${layout === 'codec' ? '' : `alter table ${table} alter column bpm set compression ${compression};`}
    ${wide(layout) ? `alter table ${table} alter column utc_offsets set compression ${compression};` : ''}`;
}

/** Lossless layouts: `integer[]` ms, `double precision[]` values, `smallint[]` offsets. */
function wide(layout: Layout): boolean {
  return layout === 'wide arrays' || layout === 'step arrays';
}

function chunkRow(layout: Layout, start: number, points: ChunkPoints): unknown[] {
  if (layout === 'codec') return [points.times.length, Buffer.from(encodeChunk(start, points))];
  const unit = layout === 'arrays' ? 1000 : 1;
  const times =
    layout === 'step arrays'
      ? points.times.map((time, index) => time - (index === 0 ? start : points.times[index - 1]!))
      : points.times.map((time) => (time - start) / unit);
  return [
    points.times.length,
    `{${times.join(',')}}`,
    `{${points.values.join(',')}}`,
    ...(wide(layout) ? [`{${points.offsets.map((offset) => offset ?? 'NULL').join(',')}}`] : []),
  ];
}

function decodeRow(layout: Layout, start: number, row: Record<string, unknown>): ChunkPoints {
  if (layout === 'codec') return decodeChunk(start, row.points as Buffer);
  const seconds = row.seconds as number[];
  const values = (row.bpm as (number | string)[]).map(Number);
  const unit = layout === 'arrays' ? 1000 : 1;
  let time = start;
  return {
    times:
      layout === 'step arrays'
        ? seconds.map((step) => (time += step))
        : seconds.map((second) => start + second * unit),
    values,
    offsets: wide(layout)
      ? (row.utc_offsets as (number | null)[])
      : seconds.map(() => OFFSET_MINUTES),
  };
}

async function chunks(
  client: pg.Client,
  year: ChunkPoints,
  period: Period,
  layout: Layout,
  compression: string,
) {
  const table = `chunks_${period}_${layout.replace(' ', '_')}_${compression}`;
  await client.query(chunkTableSql(table, layout, compression));
  const length = period === 'day' ? DAY : HOUR;
  const columns = {
    codec: 'point_count, points',
    arrays: 'point_count, seconds, bpm',
    'wide arrays': 'point_count, seconds, bpm, utc_offsets',
    'step arrays': 'point_count, seconds, bpm, utc_offsets',
  }[layout];
  /** Parameters of one chunk row: its start, then `columns`. */
  const width = 1 + columns.split(', ').length;
  const began = performance.now();
  const batch: unknown[][] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const placeholders = batch
      .map(
        (_, row) =>
          `(1, 1, 'heart_rate', 'fitbit', ${Array.from({ length: width }, (_, k) => `$${row * width + k + 1}`).join(', ')}, 'google_health', 'fitbit-charge-6', 1)`,
      )
      .join(', ');
    await client.query(
      `insert into ${table} (participant_id, team_id, metric_key, brand, period_start, ${columns},
         upstream, data_source, sync_run_id) values ${placeholders}`,
      batch.flat(),
    );
    batch.length = 0;
  };
  for (let start = START; start < START + DAYS * DAY; start += length) {
    const points = slice(year, start, Math.min(start + length, HELD_BACK_FROM));
    if (points.times.length === 0) continue;
    batch.push([new Date(start).toISOString(), ...chunkRow(layout, start, points)]);
    if (batch.length >= 48) await flush();
  }
  await flush();
  const writeMs = performance.now() - began;
  await client.query(`vacuum analyze ${table}`);
  const bytes = await relationBytes(client, table);

  const dayStart = START + Math.floor(DAYS / 2) * DAY;
  const reads: number[] = [];
  for (let run = 0; run < READ_RUNS; run += 1) {
    const t0 = performance.now();
    const result = await client.query(
      `select period_start, ${columns} from ${table}
        where participant_id = 1 and team_id = 1 and metric_key = 'heart_rate'
          and brand = 'fitbit' and period_start >= $1 and period_start < $2
        order by period_start`,
      [new Date(dayStart).toISOString(), new Date(dayStart + DAY).toISOString()],
    );
    const times: number[] = [];
    const values: number[] = [];
    for (const row of result.rows as Record<string, unknown>[]) {
      const start = (row.period_start as Date).getTime();
      const points = decodeRow(layout, start, row);
      times.push(...points.times);
      values.push(...points.values);
    }
    reads.push(performance.now() - t0);
    // Not a figure: a layout that loses points would make every figure meaningless.
    const expected = slice(year, dayStart, dayStart + DAY);
    if (
      times.length === 0 ||
      times.join() !== expected.times.join() ||
      values.join() !== expected.values.join()
    )
      throw new Error(`${table} gave back other points than it stored`);
  }

  // 15-minute syncs: the year's last hours were held back; each run merges their next 180
  // points into the chunks they fall in (read for update, decode, append, encode, write).
  const merges: number[] = [];
  const pending = slice(year, HELD_BACK_FROM, START + DAYS * DAY);
  for (let run = 0; run < READ_RUNS; run += 1) {
    const added = slice(
      pending,
      pending.times[run * 180] ?? Infinity,
      pending.times[(run + 1) * 180] ?? Infinity,
    );
    // Sparse streams (--step-seconds=60) run out of held-back points before the runs do.
    if (added.times.length === 0) break;
    const t0 = performance.now();
    await client.query('begin');
    const firstPeriod = added.times[0]! - ((added.times[0]! - START) % length);
    for (let periodStart = firstPeriod; periodStart <= added.times.at(-1)!; periodStart += length) {
      const fresh = slice(added, periodStart, periodStart + length);
      const result = await client.query(
        `select period_start, ${columns} from ${table}
          where participant_id = 1 and team_id = 1 and metric_key = 'heart_rate'
            and brand = 'fitbit' and period_start = $1 for update`,
        [new Date(periodStart).toISOString()],
      );
      const row = result.rows[0] as Record<string, unknown> | undefined;
      const stored = row
        ? decodeRow(layout, periodStart, row)
        : { times: [], values: [], offsets: [] };
      const merged: ChunkPoints = {
        times: [...stored.times, ...fresh.times],
        values: [...stored.values, ...fresh.values],
        offsets: [...stored.offsets, ...fresh.offsets],
      };
      const [count, ...data] = chunkRow(layout, periodStart, merged);
      await client.query(
        `insert into ${table} (participant_id, team_id, metric_key, brand, period_start, ${columns},
           upstream, data_source, sync_run_id)
         values (1, 1, 'heart_rate', 'fitbit', ${Array.from({ length: width }, (_, k) => `$${k + 1}`).join(', ')},
           'google_health', 'fitbit-charge-6', 2)
         on conflict (participant_id, team_id, metric_key, brand, period_start) do update
           set ${columns
             .split(', ')
             .map((column) => `${column} = excluded.${column}`)
             .join(', ')}, sync_run_id = 2, synced_at = now()`,
        [new Date(periodStart).toISOString(), count, ...data],
      );
    }
    await client.query('commit');
    merges.push(performance.now() - t0);
  }
  return {
    label: `${period} ${layout} ${compression}`,
    bytesPerReading: bytes / year.times.length,
    writeMsPerMillion: (writeMs / year.times.length) * 1e6,
    readDayMs: median(reads),
    mergeMs: merges.length > 0 ? median(merges) : null,
  };
}

async function main() {
  const admin = new pg.Client({ connectionString: serverUrl() });
  await admin.connect();
  const name = `tp_bench_chunks_${process.pid}`;
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl());
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  try {
    await client.connect();
    const version = await client.query<{ version: string }>('select version()');
    const toast = await client.query<{ default_toast_compression: string }>(
      'show default_toast_compression',
    );
    const year = heartRateYear();
    console.log(
      `Chunk storage (issue 29): ${year.times.length.toLocaleString('en')} heart-rate points over ${DAYS} days` +
        `${JITTER ? ' (1–9 s steps)' : ` (${STEP_SECONDS} s steps)`}; ${version.rows[0]!.version.split(' on ')[0]}, ` +
        `default_toast_compression ${toast.rows[0]!.default_toast_compression}` +
        `${TOAST_TARGET ? `, chunk tables' toast_tuple_target ${TOAST_TARGET}` : ''}`,
    );
    const summaryBytes = await daySummaryBytes(client);
    const results = [await rowsAsToday(client, year)];
    for (const period of ['day', 'hour'] as const)
      for (const layout of ['arrays', 'wide arrays', 'step arrays', 'codec'] as const)
        for (const compression of ['pglz', 'lz4'])
          results.push(await chunks(client, year, period, layout, compression));
    const encodeRuns: number[] = [];
    const oneDay = slice(year, START + DAY, START + 2 * DAY);
    for (let run = 0; run < READ_RUNS; run += 1) {
      const t0 = performance.now();
      decodeChunk(START + DAY, encodeChunk(START + DAY, oneDay));
      encodeRuns.push(performance.now() - t0);
    }
    console.log(
      `day summary: ${summaryBytes} bytes (${(summaryBytes / year.times.length).toFixed(3)} B/reading, added below); ` +
        `codec alone, one day (${oneDay.times.length} points): ${encodeChunk(START + DAY, oneDay).length} bytes, encode+decode ${median(encodeRuns).toFixed(2)} ms`,
    );
    console.log(
      'layout                  B/reading   write ms/M points   one-day read+decode ms   15-min merge ms',
    );
    for (const result of results) {
      console.log(
        `${result.label.padEnd(22)} ${(result.bytesPerReading + summaryBytes / year.times.length).toFixed(2).padStart(10)} ` +
          `${result.writeMsPerMillion.toFixed(0).padStart(19)} ${result.readDayMs.toFixed(2).padStart(24)} ` +
          `${result.mergeMs === null ? '—'.padStart(17) : result.mergeMs.toFixed(2).padStart(17)}`,
      );
    }
  } finally {
    await client.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name}`);
    await admin.end();
  }
}

await main();
