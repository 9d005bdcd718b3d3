import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/client';
import { neutralise, neutraliseSql } from '../../lib/csv-safe';
import { copyRows } from './copy-rows';
import { READING_DEVICE_SQL } from './reading-device';
import type { ReadingsQuery } from './readings.repository';
import { storedReadingsWithinText } from './stored-readings';

/** The flat readings table: one row per reading, in this column order (decision 0046). */
export const READINGS_CSV_COLUMNS = [
  'participant_id',
  'participant_code',
  'device',
  'metric_key',
  'metric_name',
  'units',
  'recorded_at_utc',
  'local_time',
  'utc_offset_minutes',
  'end_at_utc',
  'value',
  'value_json',
  'data_source',
  'upstream',
] as const;

/**
 * Names the rows carry that device_readings does not store (the caller's catalog). The
 * `device` column is not one of them: each row names the device it came with (decision 0186).
 */
export type ReadingsCsvLabels = {
  participantCode: string;
  metrics: readonly { metricKey: string; metricName: string; units: string | null }[];
};

export type ReadingsCsv = {
  /** CSV bytes (UTF-8, `\n` line ends), with a header line when asked for. */
  stream: Readable;
  /** Readings written; valid once `stream` has ended. */
  rows(): number;
};

/** Rows per keyset batch of the fallback (PGlite): one batch is what it holds in memory. */
export const READINGS_CSV_BATCH = 10_000;

/**
 * The columns the database writes (from `device` on): the device each reading came with, the
 * metric's names (literals, the same on every row of a metric) and the reading's own cells.
 * The two before them are the same on every row of a participant.
 */
const FORMATTED_COLUMNS = READINGS_CSV_COLUMNS.slice(READINGS_CSV_COLUMNS.indexOf('device'));

/**
 * Readings of a participant in [from, to) as CSV, ordered like `read` (metric, time,
 * brand), one metric after another. The database formats each reading (ISO UTC instants,
 * local time from the stored offset, values as stored, text cells neutralised against
 * spreadsheet formulas, lib/csv-safe); the label columns in front (participant, device,
 * metric name, units: the same on every row of a metric) are written once per metric here
 * and put before every row, not formatted by the database for every row. On PostgreSQL one
 * `COPY (SELECT …) TO STDOUT` per metric streams on its own connection (copy-rows.ts:
 * back-pressure: the socket is read only as fast as the consumer takes it; destroying the
 * stream closes that connection). Elsewhere (PGlite: no streaming COPY) the same SELECT
 * runs in keyset batches and csv-stringify writes the same bytes.
 */
export function readingsCsv(
  db: Db,
  query: ReadingsQuery,
  labels: ReadingsCsvLabels,
  options: { header: boolean; batchSize?: number; via?: 'copy' | 'batches' },
): ReadingsCsv {
  let rows = 0;
  const pool = (db as unknown as { $client?: unknown }).$client;
  const copy = options.via !== 'batches' && pool instanceof pg.Pool;
  async function* chunks(): AsyncGenerator<Buffer | string> {
    if (options.header) yield `${READINGS_CSV_COLUMNS.join(',')}\n`;
    for (const metricKey of await metricKeysOf(db, query)) {
      const labelCells = labelCellsOf(query.participantId, labels);
      if (copy) {
        // The label cells as COPY writes CSV, then the row's own cells.
        const prefix = Buffer.from(
          `${stringify([labelCells], { quoted_match: /^$/ }).slice(0, -1)},`,
          'utf8',
        );
        const client = await (pool as pg.Pool).connect();
        let clean = false;
        try {
          // JIT-compiling the row's expressions costs more than it saves on a few hundred
          // thousand rows (~25 % of the COPY's time measured): off for this query only.
          await client.query('set jit = off');
          const stream = client.query(
            copyRows(
              `COPY (${selectText(query, metricKey, labels, null)}) TO STDOUT WITH (FORMAT csv)`,
              prefix,
            ),
          );
          for await (const chunk of stream) yield chunk as Buffer;
          await stream.ready;
          rows += stream.rows;
          await client.query('reset jit');
          clean = true;
        } finally {
          // A COPY stopped half-way leaves the connection mid-protocol: close it, never reuse it.
          client.release(clean ? undefined : new Error('COPY stopped before its end'));
        }
        continue;
      }
      const batchSize = options.batchSize ?? READINGS_CSV_BATCH;
      let after: KeysetPosition | 'start' = 'start';
      for (;;) {
        const result: { rows: Record<string, string | null>[] } = await db.execute<
          Record<string, string | null>
        >(sql.raw(`${selectText(query, metricKey, labels, after)} limit ${batchSize}`));
        const batch: Record<string, string | null>[] = result.rows;
        if (batch.length > 0) {
          yield stringify(
            batch.map((row) => [
              ...labelCells,
              ...FORMATTED_COLUMNS.map((column) => row[column] ?? null),
            ]),
            // COPY's CSV: only an empty text (not a null) is quoted when it needs no quotes.
            { quoted_match: /^$/ },
          );
        }
        rows += batch.length;
        if (batch.length < batchSize) break;
        const last: Record<string, string | null> = batch.at(-1)!;
        after = { k_at: last.k_at!, k_brand: last.k_brand! };
      }
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), rows: () => rows };
}

/** The label cells of a participant's rows (participant_id, participant_code), neutralised like the rest. */
function labelCellsOf(participantId: number, labels: ReadingsCsvLabels): (string | null)[] {
  return [integer(participantId), neutralise(labels.participantCode)];
}

/**
 * The metrics to write, in the database's order of metric_key (the order the rows of one
 * query over all of them would have): the ones asked for, or those with readings in the
 * range when the query names none.
 */
async function metricKeysOf(db: Db, query: ReadingsQuery): Promise<string[]> {
  if (query.metricKeys?.length === 1) return [...query.metricKeys];
  if (query.metricKeys?.length === 0) return [];
  const text = query.metricKeys
    ? `select k as metric_key from unnest(array[${query.metricKeys.map(literal).join(', ')}]::text[]) as k group by k order by k`
    : `select distinct r.metric_key from stored_readings r where ${conditionsOf(query).join(' and ')} order by r.metric_key`;
  const result: { rows: { metric_key: string }[] } = await db.execute<{ metric_key: string }>(
    sql.raw(text),
  );
  return result.rows.map((row) => row.metric_key);
}

const literal = (value: string) => pg.escapeLiteral(value);
const integer = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
};
type KeysetPosition = { k_at: string; k_brand: string };

function conditionsOf(query: ReadingsQuery): string[] {
  const conditions = [
    `r.participant_id = ${integer(query.participantId)}`,
    `r.team_id = ${integer(query.teamId)}`,
    // Rows and chunk points alike (decision 0255), only the window's chunks unnested.
    storedReadingsWithinText('r', query.from, query.to),
  ];
  if (query.brand) conditions.push(`r.brand = ${literal(query.brand)}::device_brand`);
  if (query.localDays)
    // The local civil day of daily-summary.ts's readingDay (decision 0180), as text for COPY.
    conditions.push(
      `(date '1970-01-01' + floor((date_part('epoch', coalesce(r.end_at, r.recorded_at)) + coalesce(r.utc_offset_minutes, 0) * 60) / 86400)::int) between ${literal(query.localDays.start)}::date and ${literal(query.localDays.end)}::date`,
    );
  return conditions;
}

/**
 * The SELECT behind both ways, for one metric: literals only (COPY takes no parameters),
 * every value rendered as text by the database so both ways write the same bytes.
 * `after`: null for COPY; the batched way's keyset position ('start' for its first
 * batch), which also selects the key (k_*).
 */
function selectText(
  query: ReadingsQuery,
  metricKey: string,
  labels: ReadingsCsvLabels,
  after: KeysetPosition | 'start' | null,
): string {
  const metric = labels.metrics.find((entry) => entry.metricKey === metricKey);
  const units = metric?.units ? neutralise(metric.units) : null;
  const conditions = [...conditionsOf(query), `r.metric_key = ${literal(metricKey)}`];
  if (after && after !== 'start') {
    conditions.push(
      `(r.recorded_at, r.brand) > (${literal(after.k_at)}::timestamptz, ${literal(after.k_brand)}::device_brand)`,
    );
  }
  // ISO 8601 from the timestamp's own text (DateStyle ISO, which node-postgres's date
  // parsing needs too): "2026-10-05T01:00:00.123Z", fractions only when there are any.
  // About three times cheaper than to_char, the largest cost of the whole row; AT TIME ZONE
  // an interval is arithmetic, a zone name is looked up on every row.
  const isoUtc = (column: string) =>
    `replace((${column} at time zone interval '0')::text, ' ', 'T') || 'Z'`;
  const columns = [
    `${neutraliseSql(READING_DEVICE_SQL)} as device`,
    `${literal(metricKey)}::text as metric_key`,
    `${literal(neutralise(metric ? metric.metricName : metricKey))}::text as metric_name`,
    `${units === null ? 'null' : literal(units)}::text as units`,
    `${isoUtc('r.recorded_at')} as recorded_at_utc`,
    // Daily readings (no offset) carry their date; samples the local wall time then.
    `case when r.utc_offset_minutes is null then (r.recorded_at at time zone interval '0')::date::text
       else replace((r.recorded_at at time zone make_interval(mins => r.utc_offset_minutes))::text, ' ', 'T') end as local_time`,
    `r.utc_offset_minutes::text as utc_offset_minutes`,
    `${isoUtc('r.end_at')} as end_at_utc`,
    `r.value::text as value`,
    `${neutraliseSql('r.value_json::text')} as value_json`,
    `${neutraliseSql('r.data_source')} as data_source`,
    `r.upstream`,
  ];
  if (after) columns.push(`r.recorded_at::text as k_at`, `r.brand::text as k_brand`);
  return `select ${columns.join(', ')} from stored_readings r where ${conditions.join(' and ')} order by r.recorded_at, r.brand`;
}
