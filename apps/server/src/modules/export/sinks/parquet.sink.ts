import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { safeFileNamePart } from '@trialpulse/shared';
import type { ByteWriter, ParquetWriter } from 'hyparquet-writer';
import { readingDevice } from '../../sync/reading-device';
import type { StoredReading } from '../../sync/readings.service';
import { exportBaseName, type MetricInfo } from '../export-plan';
import type { ExportSink, SinkContext } from './export-sink';
import type { WrittenFile } from './sink-files';

/**
 * Rows of one metric's file held before they are written as a row group; and rows held
 * across every metric before the largest buffers are written early. These bound what an
 * export holds (decision 0250): writing a row group of 32,768 rows holds ~14 MB of heap at
 * its peak (100,000 held ~34 MB: too close to the memory test's 64 MB heap).
 */
export const PARQUET_ROW_GROUP_ROWS = 32_768;
export const PARQUET_BUFFERED_ROWS = 65_536;
/** zstd's default level: level 1 saved little time and cost ~10 % of the size here. */
const ZSTD_LEVEL = 3;

/**
 * The data as Apache Parquet (decision 0250): one file per exported metric with every
 * participant's rows, in the columns of the CSV (decision 0046) with Parquet types:
 * instants as TIMESTAMP(isAdjustedToUTC, millis), the wall-clock time as a TIMESTAMP not
 * adjusted to UTC, the offset as INT32 minutes, the value as DOUBLE in the metric's units
 * (the data dictionary's). Text is written as stored: Parquet is read by code, not opened
 * by a spreadsheet, so nothing is neutralised against formulas (decision 0130 is about
 * spreadsheets). zstd pages, written with hyparquet-writer as the pages of readings come:
 * a metric's rows are held until a row group is full (or too much is held in all) and
 * then written to its file in the work directory; the files are zipped stored (they are
 * compressed already). The export mode does not apply: a metric's file has every
 * participant, one after another in the plan's order, each ordered by time.
 */
export async function parquetSink({ plan, workDir }: SinkContext): Promise<ExportSink> {
  const parquet = await import('hyparquet-writer');
  const zstd = await zstdCodec();
  const base = exportBaseName(plan);
  const metricsByKey = new Map(plan.metrics.map((metric) => [metric.metricKey, metric]));
  const files = new Map<string, MetricFile>();
  const devices = new Map<string, string>();
  let buffered = 0;
  let totalRows = 0;

  const flush = async (file: MetricFile) => {
    const rows = file.buffer.participant_id.length;
    if (rows === 0) return;
    buffered -= rows;
    const columns = file.buffer;
    file.buffer = emptyColumns();
    await file.writer.write({
      rowGroupSize: rows,
      columnData: PARQUET_COLUMNS.map((column) => ({
        name: column.name,
        // The instants' converted type has the writer make them BigInts; local_time has none.
        data: column.type === 'LOCAL' ? columns[column.name].map(toBigInt) : columns[column.name],
        // Times in time order: deltas of a few bits each.
        encoding: isTimestamp(column) ? ('DELTA_BINARY_PACKED' as const) : undefined,
        // Min/max where a reader can skip row groups by them (ids, times, values); the text
        // columns' would cost a tenth of the writing for nothing.
        statistics: column.type !== 'STRING',
      })),
    });
  };

  return {
    reads: 'pages',
    async open() {
      const usedNames = new Set<string>();
      for (const [index, metricKey] of plan.request.metrics.entries()) {
        const wanted = `${base}-${safeFileNamePart(metricKey)}-Data.parquet`;
        let name = wanted;
        for (let n = 2; usedNames.has(name); n += 1)
          name = wanted.replace(/-Data\.parquet$/, `-${n}-Data.parquet`);
        usedNames.add(name);
        const output = new FileOutput(
          path.join(workDir, `data-${index}.parquet`),
          parquet.ByteWriter,
        );
        files.set(metricKey, {
          name,
          output,
          writer: new parquet.ParquetWriter({
            writer: output.writer,
            schema: PARQUET_SCHEMA,
            codec: 'ZSTD',
            compressors: { ZSTD: (bytes) => zstd(bytes, ZSTD_LEVEL) },
          }),
          buffer: emptyColumns(),
          rows: 0,
        });
      }
    },
    async writePage({ participant, readings, end }) {
      if (end) return;
      for (const reading of readings) {
        const file = files.get(reading.metricKey);
        if (!file) continue;
        appendRow(
          file.buffer,
          reading,
          participant.participantCode,
          metricsByKey.get(reading.metricKey),
          devices,
        );
        file.rows += 1;
        buffered += 1;
        totalRows += 1;
        if (file.buffer.participant_id.length >= PARQUET_ROW_GROUP_ROWS) await flush(file);
      }
      if (buffered > PARQUET_BUFFERED_ROWS) {
        const largest = [...files.values()].sort(
          (a, b) => b.buffer.participant_id.length - a.buffer.participant_id.length,
        );
        for (const file of largest) {
          if (buffered <= PARQUET_BUFFERED_ROWS / 2) break;
          await flush(file);
        }
      }
    },
    async close() {
      const written: WrittenFile[] = [];
      for (const file of files.values()) {
        await flush(file);
        await file.writer.finish();
        written.push(await file.output.close(file.name, file.rows));
      }
      return {
        files: written,
        dataRows: totalRows,
        columnNotes: [
          [
            'Data (Parquet)',
            '(reading the files)',
            'One file per metric, every participant\'s rows in the columns above, zstd-compressed. R: arrow::read_parquet("<file>"); Python: pandas.read_parquet("<file>") (with pyarrow); DuckDB: SELECT * FROM \'<file>\'',
          ],
          [
            'Data (Parquet)',
            'recorded_at_utc, end_at_utc',
            'TIMESTAMP adjusted to UTC (milliseconds): an instant; R gives POSIXct in UTC, pandas datetime64[ms, UTC]',
          ],
          [
            'Data (Parquet)',
            'local_time',
            "TIMESTAMP not adjusted to UTC (milliseconds): the participant's wall-clock time; a daily value: midnight of its date",
          ],
          [
            'Data (Parquet)',
            'utc_offset_minutes, value',
            'INT32 minutes (null for a daily value); DOUBLE in the units column’s unit (the data dictionary’s)',
          ],
          [
            'Data (Parquet)',
            '(text)',
            'Text as the provider sent it: not neutralised against spreadsheet formulas as in the CSV and XLSX (a cell the CSV starts with an apostrophe has none here)',
          ],
          ...written.map(
            (file) =>
              [
                'Data (Parquet)',
                file.name,
                `${file.rows} rows. R: arrow::read_parquet("${file.name}"); Python: pandas.read_parquet("${file.name}")`,
              ] as const,
          ),
        ],
      };
    },
  };
}

/** The columns of a Parquet data file: the CSV's (READINGS_CSV_COLUMNS), in its order. */
const PARQUET_COLUMNS = [
  { name: 'participant_id', type: 'INT32', required: true },
  { name: 'participant_code', type: 'STRING', required: true },
  { name: 'device', type: 'STRING', required: true },
  { name: 'metric_key', type: 'STRING', required: true },
  { name: 'metric_name', type: 'STRING', required: true },
  { name: 'units', type: 'STRING', required: false },
  { name: 'recorded_at_utc', type: 'INSTANT', required: true },
  { name: 'local_time', type: 'LOCAL', required: true },
  { name: 'utc_offset_minutes', type: 'INT32', required: false },
  { name: 'end_at_utc', type: 'INSTANT', required: false },
  { name: 'value', type: 'DOUBLE', required: false },
  { name: 'value_json', type: 'STRING', required: false },
  { name: 'data_source', type: 'STRING', required: false },
  { name: 'upstream', type: 'STRING', required: true },
] as const;

type ColumnName = (typeof PARQUET_COLUMNS)[number]['name'];
const isTimestamp = (column: (typeof PARQUET_COLUMNS)[number]) =>
  column.type === 'INSTANT' || column.type === 'LOCAL';
type Columns = Record<ColumnName, (string | number | null)[]>;
type Schema = ConstructorParameters<typeof ParquetWriter>[0]['schema'];
type Writer = ConstructorParameters<typeof ParquetWriter>[0]['writer'] & { index: number };

/**
 * The file's schema. Timestamps carry the logical type (UTC-adjusted or not) and, for the
 * instants, the legacy converted type older readers know. No INTEGER(16) logical type for
 * the offset: hyparquet-writer 0.17 writes its bit width as a 32-bit integer, which
 * DuckDB refuses as invalid metadata (decision 0250); plain INT32 reads everywhere.
 */
export const PARQUET_SCHEMA: Schema = [
  { name: 'schema', num_children: PARQUET_COLUMNS.length },
  ...PARQUET_COLUMNS.map((column): Schema[number] => {
    const repetition_type = column.required ? 'REQUIRED' : 'OPTIONAL';
    switch (column.type) {
      case 'STRING':
        return {
          name: column.name,
          type: 'BYTE_ARRAY',
          converted_type: 'UTF8',
          logical_type: { type: 'STRING' },
          repetition_type,
        };
      case 'INSTANT':
        return {
          name: column.name,
          type: 'INT64',
          converted_type: 'TIMESTAMP_MILLIS',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MILLIS' },
          repetition_type,
        };
      case 'LOCAL':
        return {
          name: column.name,
          type: 'INT64',
          logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: false, unit: 'MILLIS' },
          repetition_type,
        };
      default:
        return { name: column.name, type: column.type, repetition_type };
    }
  }),
];

type MetricFile = {
  name: string;
  output: FileOutput;
  writer: ParquetWriter;
  buffer: Columns;
  rows: number;
};

function emptyColumns(): Columns {
  return Object.fromEntries(
    PARQUET_COLUMNS.map((column) => [column.name, []]),
  ) as unknown as Columns;
}

/** A reading as a row of the buffer: the CSV's cells (sink-files.ts dataRow) as typed values. */
function appendRow(
  columns: Columns,
  reading: StoredReading,
  code: string,
  metric: MetricInfo | undefined,
  devices: Map<string, string>,
): void {
  // readingDevice makes a new string per reading: one per source keeps the buffer small and
  // the rows quick. Without valueJson (which a rule may read) brand, upstream and source decide.
  let device: string;
  if (reading.valueJson === null || reading.valueJson === undefined) {
    const key = `${reading.brand}\u0000${reading.upstream}\u0000${reading.dataSource ?? ''}`;
    device = devices.get(key) ?? readingDevice(reading);
    devices.set(key, device);
  } else device = readingDevice(reading);
  const at = reading.recordedAt.getTime();
  columns.participant_id.push(reading.participantId);
  columns.participant_code.push(code);
  columns.device.push(device);
  columns.metric_key.push(reading.metricKey);
  columns.metric_name.push(metric?.metricName ?? reading.metricKey);
  columns.units.push(metric?.units ?? null);
  columns.recorded_at_utc.push(at);
  // A daily value (no offset): midnight of its date, the date the CSV writes.
  columns.local_time.push(
    reading.utcOffsetMinutes === null
      ? at - (at % 86_400_000)
      : at + reading.utcOffsetMinutes * 60_000,
  );
  columns.utc_offset_minutes.push(reading.utcOffsetMinutes);
  columns.end_at_utc.push(reading.endAt ? reading.endAt.getTime() : null);
  columns.value.push(reading.value);
  columns.value_json.push(
    reading.valueJson === null || reading.valueJson === undefined
      ? null
      : JSON.stringify(reading.valueJson),
  );
  columns.data_source.push(reading.dataSource);
  columns.upstream.push(reading.upstream);
}

const toBigInt = (value: string | number | null) => (value === null ? null : BigInt(value));

/**
 * A Parquet file in the work directory: hyparquet-writer's ByteWriter whose `flush` (after
 * each row group) and `finish` hand the bytes to a file stream with back-pressure,
 * hashing and counting them on the way; the buffer is reused for the next row group.
 */
class FileOutput {
  readonly writer: Writer;
  private readonly stream: fs.WriteStream;
  private readonly hash = createHash('sha256');
  private bytes = 0;
  private failed: Error | undefined;

  constructor(
    private readonly filePath: string,
    ByteWriterClass: typeof ByteWriter,
  ) {
    this.stream = fs.createWriteStream(filePath);
    // Kept for the next write or the close to throw (a full disk), never unhandled.
    this.stream.on('error', (error) => (this.failed ??= error));
    const writer: Writer = new ByteWriterClass(1 << 20);
    writer.flush = () => this.drain();
    writer.finish = () => this.drain();
    this.writer = writer;
  }

  private async drain(): Promise<void> {
    if (this.failed) throw this.failed;
    const writer = this.writer;
    if (writer.index === 0) return;
    const chunk = Buffer.from(writer.buffer.slice(0, writer.index));
    writer.index = 0;
    this.hash.update(chunk);
    this.bytes += chunk.length;
    if (!this.stream.write(chunk)) await once(this.stream, 'drain');
  }

  async close(name: string, rows: number): Promise<WrittenFile> {
    this.stream.end();
    await finished(this.stream);
    return {
      name,
      rows,
      bytes: this.bytes,
      sha256: this.hash.digest('hex'),
      filePath: this.filePath,
      compressed: true,
    };
  }
}

let zstdReady: Promise<(bytes: Uint8Array, level: number) => Uint8Array> | undefined;

/**
 * zstd compression from @bokuweb/zstd-wasm (WebAssembly: the same bytes on every Node
 * version and platform, no native build; Node's own zstd arrives only in 22.15), loaded
 * once per process.
 */
function zstdCodec(): Promise<(bytes: Uint8Array, level: number) => Uint8Array> {
  zstdReady ??= import('@bokuweb/zstd-wasm').then(async (zstd) => {
    await zstd.init();
    return (bytes, level) => zstd.compress(bytes, level);
  });
  return zstdReady;
}
