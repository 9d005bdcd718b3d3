import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify/sync';
import { neutralise } from '../../../lib/csv-safe';
import { readingDevice } from '../../sync/reading-device';
import type { StoredReading } from '../../sync/readings.service';
import type { ExportFileEntry, MetricInfo } from '../export-plan';

/**
 * A file in the work directory, before it goes into the ZIP; `compressed`: a format that is
 * compressed already (XLSX, Parquet), stored in the ZIP rather than deflated again.
 */
export type WrittenFile = ExportFileEntry & { filePath: string; compressed?: boolean };

export type Cell = string | number | null;

/** A text file in the work directory: written with back-pressure, hashed and counted on the way. */
export class TextFile {
  readonly hash = createHash('sha256');
  bytes = 0;
  rows = 0;
  private readonly stream: fs.WriteStream;
  constructor(
    readonly name: string,
    readonly filePath: string,
  ) {
    this.stream = fs.createWriteStream(filePath);
  }
  async write(text: string): Promise<void> {
    if (text.length === 0) return;
    const buffer = Buffer.from(text, 'utf8');
    this.hash.update(buffer);
    this.bytes += buffer.length;
    if (!this.stream.write(buffer)) await once(this.stream, 'drain');
  }
  async close(): Promise<WrittenFile> {
    this.stream.end();
    await finished(this.stream);
    return {
      name: this.name,
      rows: this.rows,
      bytes: this.bytes,
      sha256: this.hash.digest('hex'),
      filePath: this.filePath,
    };
  }
}

/** A CSV file through csv-stringify, one chunk per page of rows. */
export class CsvFile extends TextFile {
  private started = false;
  constructor(
    name: string,
    filePath: string,
    private readonly columns: readonly string[],
  ) {
    super(name, filePath);
  }
  async rowsOf(rows: Cell[][]): Promise<void> {
    const header = !this.started;
    this.started = true;
    this.rows += rows.length;
    await this.write(
      stringify(rows, {
        header,
        columns: header ? [...this.columns] : undefined,
        cast: { string: (value) => value },
      }),
    );
  }
  override async close(): Promise<WrittenFile> {
    if (!this.started) await this.rowsOf([]);
    return super.close();
  }
}

/** Hash and size of a finished file (for a writer that owns its stream, such as exceljs). */
export async function describeFile(
  name: string,
  filePath: string,
  rows: number,
): Promise<WrittenFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of fs.createReadStream(filePath)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { name, rows, bytes, sha256: hash.digest('hex'), filePath };
}

/**
 * A reading as a row of the data files' columns (decision 0046), formatted as the database
 * formats the CSV data (readings-csv.ts), text cells neutralised; the device is the one the
 * reading came with (decision 0186).
 */
export function dataRow(
  reading: StoredReading,
  code: string,
  metric: MetricInfo | undefined,
): Cell[] {
  return [
    reading.participantId,
    neutralise(code),
    neutralise(readingDevice(reading)),
    reading.metricKey,
    neutralise(metric?.metricName ?? reading.metricKey),
    metric?.units ? neutralise(metric.units) : null,
    isoUtc(reading.recordedAt),
    localTime(reading),
    reading.utcOffsetMinutes,
    reading.endAt ? isoUtc(reading.endAt) : null,
    reading.value,
    reading.valueJson === null || reading.valueJson === undefined
      ? null
      : neutralise(JSON.stringify(reading.valueJson)),
    reading.dataSource ? neutralise(reading.dataSource) : null,
    reading.upstream,
  ];
}

/** ISO local time from the instant and the participant's offset then (daily readings: the date). */
function localTime(reading: StoredReading): string {
  if (reading.utcOffsetMinutes === null) return reading.recordedAt.toISOString().slice(0, 10);
  const local = new Date(reading.recordedAt.getTime() + reading.utcOffsetMinutes * 60_000);
  return isoUtc(local).slice(0, -1);
}

/**
 * ISO 8601 in UTC as the database writes it in the CSV data (readings-csv.ts): fractions
 * of a second only when there are any ("…T08:00:00Z", "…T08:00:00.12Z").
 */
function isoUtc(at: Date): string {
  return at.toISOString().replace(/\.?0+Z$/, 'Z');
}
