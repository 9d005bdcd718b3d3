import { Readable } from 'node:stream';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { stringify } from 'csv-stringify/sync';
import type { Db } from '../../db/client';
import { neutralise, neutraliseSql } from '../../lib/csv-safe';
import type { ReadingsQuery } from './readings.repository';

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

/** Names the rows carry that device_readings does not store (the caller's catalog). */
export type ReadingsCsvLabels = {
  participantCode: string;
  device: string;
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
 * Readings of a participant in [from, to) as CSV, ordered like `read` (metric, time,
 * brand), formatted by the database: ISO UTC instants, local time from the stored offset,
 * values as stored, and every text cell neutralised against spreadsheet formulas
 * (lib/csv-safe). On PostgreSQL one `COPY (SELECT …) TO STDOUT` streams on its own
 * connection (back-pressure: the socket is read only as fast as the consumer takes it;
 * destroying the stream closes that connection). Elsewhere (PGlite: no streaming COPY) the
 * same SELECT runs in keyset batches and csv-stringify writes the same bytes.
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
    if (query.metricKeys?.length === 0) {
      if (options.header) yield `${READINGS_CSV_COLUMNS.join(',')}\n`;
      return;
    }
    if (copy) {
      const text = `COPY (${selectText(query, labels, null)}) TO STDOUT WITH (FORMAT csv${options.header ? ', HEADER' : ''})`;
      const client = await (pool as pg.Pool).connect();
      let clean = false;
      try {
        const stream = client.query(copyTo(text));
        // The row count arrives with CommandComplete, after the last data.
        const ready = new Promise<void>((resolve) => {
          (stream as unknown as { handleReadyForQuery(): void }).handleReadyForQuery = () =>
            resolve();
        });
        for await (const chunk of stream) yield chunk as Buffer;
        await ready;
        rows = stream.rowCount;
        clean = true;
      } finally {
        // A COPY stopped half-way leaves the connection mid-protocol: close it, never reuse it.
        client.release(clean ? undefined : new Error('COPY stopped before its end'));
      }
      return;
    }
    const batchSize = options.batchSize ?? READINGS_CSV_BATCH;
    let after: KeysetPosition | 'start' = 'start';
    let header = options.header;
    for (;;) {
      const result: { rows: Record<string, string | null>[] } = await db.execute<
        Record<string, string | null>
      >(sql.raw(`${selectText(query, labels, after)} limit ${batchSize}`));
      const batch: Record<string, string | null>[] = result.rows;
      if (batch.length > 0 || header) {
        yield stringify(
          batch.map((row) => READINGS_CSV_COLUMNS.map((column) => row[column] ?? null)),
          // COPY's CSV: only an empty text (not a null) is quoted when it needs no quotes.
          { header, columns: header ? [...READINGS_CSV_COLUMNS] : undefined, quoted_match: /^$/ },
        );
        header = false;
      }
      rows += batch.length;
      if (batch.length < batchSize) return;
      const last: Record<string, string | null> = batch.at(-1)!;
      after = { k_metric: last.k_metric!, k_at: last.k_at!, k_brand: last.k_brand! };
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), rows: () => rows };
}

const literal = (value: string) => pg.escapeLiteral(value);
const integer = (value: number) => {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
};
type KeysetPosition = { k_metric: string; k_at: string; k_brand: string };

/**
 * The SELECT behind both ways: literals only (COPY takes no parameters), every value
 * rendered as text by the database so both ways write the same bytes. `after`: null for
 * COPY; the batched way's keyset position ('start' for its first batch), which also
 * selects the key (k_*).
 */
function selectText(
  query: ReadingsQuery,
  labels: ReadingsCsvLabels,
  after: KeysetPosition | 'start' | null,
): string {
  const conditions = [
    `r.participant_id = ${integer(query.participantId)}`,
    `r.team_id = ${integer(query.teamId)}`,
    `r.recorded_at >= ${literal(query.from.toISOString())}::timestamptz`,
    `r.recorded_at < ${literal(query.to.toISOString())}::timestamptz`,
  ];
  if (query.metricKeys)
    conditions.push(`r.metric_key in (${query.metricKeys.map(literal).join(', ')})`);
  if (query.brand) conditions.push(`r.brand = ${literal(query.brand)}::device_brand`);
  if (after && after !== 'start') {
    conditions.push(
      `(r.metric_key, r.recorded_at, r.brand) > (${literal(after.k_metric)}, ${literal(after.k_at)}::timestamptz, ${literal(after.k_brand)}::device_brand)`,
    );
  }
  const label = (value: string | null) =>
    value === null ? 'null::text' : `${literal(neutralise(value))}::text`;
  const byMetric = (
    pick: (metric: ReadingsCsvLabels['metrics'][number]) => string | null,
    otherwise: string,
  ) =>
    labels.metrics.length === 0
      ? otherwise
      : `(case r.metric_key ${labels.metrics.map((metric) => `when ${literal(metric.metricKey)} then ${label(pick(metric))}`).join(' ')} else ${otherwise} end)`;
  // ISO 8601 from the timestamp's own text (DateStyle ISO, which node-postgres's date
  // parsing needs too): "2026-10-05T01:00:00.123Z", fractions only when there are any.
  // About three times cheaper than to_char, the largest cost of the whole row; AT TIME ZONE
  // an interval is arithmetic, a zone name is looked up on every row.
  const isoUtc = (column: string) =>
    `replace((${column} at time zone interval '0')::text, ' ', 'T') || 'Z'`;
  const columns = [
    `${integer(query.participantId)}::text as participant_id`,
    `${label(labels.participantCode)} as participant_code`,
    `${label(labels.device)} as device`,
    `r.metric_key`,
    `${byMetric((metric) => metric.metricName, neutraliseSql('r.metric_key'))} as metric_name`,
    `${byMetric((metric) => metric.units || null, 'null::text')} as units`,
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
  if (after)
    columns.push(
      `r.metric_key as k_metric`,
      `r.recorded_at::text as k_at`,
      `r.brand::text as k_brand`,
    );
  return `select ${columns.join(', ')} from device_readings r where ${conditions.join(' and ')} order by r.metric_key, r.recorded_at, r.brand`;
}
