import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ZipArchive } from 'archiver';
import crc32 from 'crc-32';
import { stringify } from 'csv-stringify/sync';
import type ExcelJS from 'exceljs';
import {
  EXPORT_PRODUCT_NAME,
  safeFileNamePart,
  type ExportExtra,
  type ExportFormat,
  type ExportMode,
} from '@trialpulse/shared';
import type { DeviceBrand } from '../../db/schema';
import { neutralise } from '../../lib/csv-safe';
import {
  READINGS_CSV_COLUMNS,
  type ReadingsCsv,
  type ReadingsCsvLabels,
} from '../sync/readings-csv';
import type { ReadingsQuery, StoredReading } from '../sync/readings.service';
import {
  FHIR_MAPPINGS,
  OMH_MAPPINGS,
  openMHealthSerializer,
  toFhirObservation,
  type SubjectInfo,
} from './export-standards';

/** What the writer needs about a metric (from the metric catalog). */
export type MetricInfo = {
  metricKey: string;
  metricName: string;
  units: string | null;
  category: string | null;
  description: string | null;
};

export type ExportPlan = {
  jobId: number;
  teamId: number;
  request: {
    fileName: string;
    startDate: string;
    endDate: string;
    participantIds: number[];
    metrics: string[];
    exportMode: ExportMode;
    format: ExportFormat;
    extras: ExportExtra[];
    trialId: number;
    deviceId: number;
  };
  device: { id: number; friendlyName: string; brand: DeviceBrand; deviceType: string | null };
  participants: { participantId: number; participantCode: string }[];
  metrics: MetricInfo[];
  softwareVersion: string;
  exportedAt: Date;
};

export type ExportFileEntry = { name: string; rows: number; bytes: number; sha256: string };
export type ExportResult = { files: ExportFileEntry[]; totalRows: number };
/** A file in the work directory, before it goes into the ZIP. */
type WrittenFile = ExportFileEntry & { filePath: string };

export type ExportIo = {
  /** Pages of stored readings (ReadingsService.iterate): XLSX data and the optional files. */
  iterate(query: ReadingsQuery, options: { pageSize?: number }): AsyncIterable<StoredReading[]>;
  /** The readings as CSV formatted by the database (ReadingsService.csv): CSV data files. */
  csv(query: ReadingsQuery, labels: ReadingsCsvLabels, options: { header: boolean }): ReadingsCsv;
  /** Called after each page with the share done (0–1); false stops the export (cancelled). */
  progress(fraction: number): Promise<boolean>;
  /** Rows per page read from the database (default EXPORT_PAGE_SIZE). */
  pageSize?: number;
  /** Deflate level of the ZIP (default EXPORT_ZIP_LEVEL; the bench compares levels). */
  zipLevel?: number;
};

export class ExportCancelled extends Error {
  constructor() {
    super('export cancelled');
    this.name = 'ExportCancelled';
  }
}

/** Rows per database page: one page (objects and its CSV text) is what an export holds in memory. */
export const EXPORT_PAGE_SIZE = 5_000;

/**
 * Deflate level of the ZIP (decision 0049): 1, zlib's fastest. Readings CSV repeats itself
 * so much that level 6 saves little space and costs most of an export's time.
 */
export const EXPORT_ZIP_LEVEL = 1;

/** Bytes of a streamed data file between two progress reports (heartbeat and cancel check). */
const REPORT_EVERY_BYTES = 4 << 20;
/** Bytes handed to the ZIP at a time (and the deflate stream's output buffer). */
const BATCH_BYTES = 1 << 20;

/** Characters of Open mHealth text handed to its file at a time. */
const OMH_WRITE_CHARS = 1 << 20;

/** Excel's last row; a longer single tab continues on a sheet named "… (2)". */
const XLSX_MAX_ROWS = 1_048_576;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The data files' columns (decision 0046), as the readings module writes them. */
export const DATA_COLUMNS = READINGS_CSV_COLUMNS;

type Cell = string | number | null;

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

function dataRow(
  reading: StoredReading,
  code: string,
  device: string,
  metric: MetricInfo | undefined,
): Cell[] {
  return [
    reading.participantId,
    neutralise(code),
    neutralise(device),
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

/** A text file in the work directory: written with back-pressure, hashed and counted on the way. */
class TextFile {
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
class CsvFile extends TextFile {
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

/** Hash and size of a finished file (the XLSX writer owns its stream). */
async function describeFile(name: string, filePath: string, rows: number): Promise<WrittenFile> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of fs.createReadStream(filePath)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { name, rows, bytes, sha256: hash.digest('hex'), filePath };
}

/** Sheet names: at most 31 characters, none of []:*?/\, unique in the workbook. */
function sheetNamer() {
  const used = new Set<string>();
  return (wanted: string) => {
    const base = wanted.replace(/[[\]:*?/\\']/g, '_').slice(0, 31) || 'Sheet';
    let name = base;
    for (let n = 2; used.has(name.toLowerCase()); n += 1)
      name = `${base.slice(0, 31 - String(n).length - 3)} (${n})`;
    used.add(name.toLowerCase());
    return name;
  };
}

/**
 * The XLSX data file (exceljs streaming writer, loaded only for XLSX): separate tabs, one
 * sheet per participant and metric; single tab, one long table.
 */
async function createXlsxSink(plan: ExportPlan, workDir: string) {
  const { default: excel } = await import('exceljs');
  const separate = plan.request.exportMode === 'separate-tabs';
  const name = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}-Data.xlsx`;
  const filePath = path.join(workDir, 'data.xlsx');
  const workbook = new excel.stream.xlsx.WorkbookWriter({
    filename: filePath,
    useStyles: false,
    useSharedStrings: false,
  });
  const nameSheet = sheetNamer();
  let sheet: { key: string; worksheet: ExcelJS.Worksheet; rows: number; title: string } | undefined;
  let totalRows = 0;
  const openSheet = (key: string, title: string) => {
    if (sheet?.key === key && sheet.rows < XLSX_MAX_ROWS) return sheet;
    sheet?.worksheet.commit();
    const worksheet = workbook.addWorksheet(nameSheet(title));
    worksheet.addRow([...DATA_COLUMNS]).commit();
    sheet = { key, worksheet, rows: 1, title };
    return sheet;
  };
  return {
    async write(code: string, metricKey: string, rows: Cell[][]) {
      const title = separate ? `${code}-${metricKey}` : 'Data';
      let target = openSheet(separate ? `${code}|${metricKey}` : 'all', title);
      for (const row of rows) {
        if (target.rows >= XLSX_MAX_ROWS) target = openSheet(target.key, target.title);
        target.worksheet.addRow(row).commit();
        target.rows += 1;
      }
      totalRows += rows.length;
      await sheetDrained(target.worksheet);
    },
    /** Separate tabs: a participant's metric without rows still gets its (header-only) sheet. */
    async ensure(code: string, metricKey: string) {
      if (separate) openSheet(`${code}|${metricKey}`, `${code}-${metricKey}`);
    },
    async close(): Promise<WrittenFile[]> {
      if (!sheet) openSheet('all', 'Data');
      sheet?.worksheet.commit();
      await workbook.commit();
      return [await describeFile(name, filePath, totalRows)];
    },
  };
}

/** Bytes of a sheet's XML that may wait for the workbook's deflate before the next page is made. */
const XLSX_PENDING_BYTES = 4 << 20;

/**
 * exceljs's streaming sheet (a StreamBuf) writes into the workbook's zip entry without
 * looking at back-pressure: rows made faster than they are deflated piled up in memory (a
 * 400k-row sheet: ~230 MB held). Waits until the entry's stream has drained when more than
 * a few MB wait. The entry of the sheet being written is the one the zip is reading: the
 * sheets before it were committed (ended), and exceljs adds its other files only at the end.
 */
export async function sheetDrained(worksheet: ExcelJS.Worksheet): Promise<void> {
  type Pipe = Writable & { _writableState?: { length: number; needDrain: boolean } };
  const pipes = (worksheet as unknown as { stream?: { pipes?: Pipe[] } }).stream?.pipes ?? [];
  for (const pipe of pipes) {
    const state = pipe._writableState;
    if (state && state.needDrain && state.length > XLSX_PENDING_BYTES) await once(pipe, 'drain');
  }
  await new Promise((resolve) => setImmediate(resolve));
}

/** Per participant and day: readings, heart-rate minutes, hours with any intraday sample (decision 0046). */
function createAdherence(plan: ExportPlan, workDir: string) {
  const file = new CsvFile(
    `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}-adherence.csv`,
    path.join(workDir, 'adherence.csv'),
    [
      'participant_id',
      'participant_code',
      'date',
      'readings',
      'heart_rate_minutes',
      'sensor_hours',
    ],
  );
  let days = new Map<
    string,
    { readings: number; hrMinutes: number; lastHrMinute: number; hours: number }
  >();
  return {
    add(reading: StoredReading) {
      const day = reading.recordedAt.toISOString().slice(0, 10);
      let entry = days.get(day);
      if (!entry)
        days.set(day, (entry = { readings: 0, hrMinutes: 0, lastHrMinute: -1, hours: 0 }));
      entry.readings += 1;
      if (reading.metricKey === 'heart_rate') {
        // Readings of a metric arrive in time order, so a new minute is one not seen last.
        const minute = Math.floor(reading.recordedAt.getTime() / 60_000);
        if (minute !== entry.lastHrMinute) {
          entry.hrMinutes += 1;
          entry.lastHrMinute = minute;
        }
      }
      if (reading.utcOffsetMinutes !== null) entry.hours |= 1 << reading.recordedAt.getUTCHours();
    },
    /** Writes one participant's days over the whole range (days without data: zeros). */
    async flush(participant: { participantId: number; participantCode: string }) {
      const rows: Cell[][] = [];
      const start = Date.parse(`${plan.request.startDate}T00:00:00Z`);
      const end = Date.parse(`${plan.request.endDate}T00:00:00Z`);
      for (let at = start; at <= end; at += DAY_MS) {
        const day = new Date(at).toISOString().slice(0, 10);
        const entry = days.get(day);
        rows.push([
          participant.participantId,
          neutralise(participant.participantCode),
          day,
          entry?.readings ?? 0,
          entry?.hrMinutes ?? 0,
          entry ? popcount(entry.hours) : 0,
        ]);
      }
      await file.rowsOf(rows);
      days = new Map();
    },
    close: () => file.close(),
  };
}

function popcount(mask: number): number {
  let n = 0;
  for (let bits = mask >>> 0; bits; bits &= bits - 1) n += 1;
  return n;
}

/** The data dictionary: one row per exported metric. */
function dictionaryRows(plan: ExportPlan): Cell[][] {
  return plan.metrics.map((metric) => [
    metric.metricKey,
    neutralise(metric.metricName),
    metric.units,
    metric.category,
    metric.description ? neutralise(metric.description) : null,
    neutralise(`${plan.device.brand}: ${plan.device.friendlyName}`),
    FHIR_MAPPINGS[metric.metricKey]?.codings.map((coding) => coding.code).join(' ') ?? null,
    OMH_MAPPINGS[metric.metricKey]
      ? `omh:${OMH_MAPPINGS[metric.metricKey]!.name}:${OMH_MAPPINGS[metric.metricKey]!.version}`
      : null,
  ]);
}

/**
 * Builds the ZIP of one export at `zipPath`, written as it goes (decision 0048). CSV data:
 * the readings as CSV formatted by the database (`COPY … TO STDOUT` on PostgreSQL), one
 * stream per participant and metric piped straight into the ZIP entry, hashed and counted
 * on the way. XLSX data and the optional files (FHIR, Open mHealth, adherence): a pass over
 * keyset pages of readings into files in `workDir`, zipped after. Then the data dictionary
 * and the manifest. Memory holds a stream's buffers, one page of readings and one
 * participant's adherence days, whatever the size of the export.
 * Throws ExportCancelled when `io.progress` answers false (the job was cancelled).
 */
export async function writeExport(
  plan: ExportPlan,
  io: ExportIo,
  workDir: string,
  zipPath: string,
): Promise<ExportResult> {
  const base = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
  const range = {
    from: new Date(`${plan.request.startDate}T00:00:00Z`),
    to: new Date(Date.parse(`${plan.request.endDate}T00:00:00Z`) + DAY_MS),
  };
  const extras = new Set(plan.request.extras);
  const csv = plan.request.format === 'csv';
  const objectPass = !csv || extras.size > 0;
  // Progress: reading shares 0–90 % between the CSV streams and the pass over pages.
  const share = 0.9 / ((csv ? 1 : 0) + (objectPass ? 1 : 0));
  const check = async (fraction: number) => {
    if (!(await io.progress(fraction))) throw new ExportCancelled();
  };

  const zip = new ZipWriter(zipPath, plan.exportedAt, io.zipLevel ?? EXPORT_ZIP_LEVEL);
  try {
    const files: ExportFileEntry[] = [];
    let totalRows = 0;
    if (csv) {
      const data = await streamCsvData(plan, io, zip, range, (done) => done * share);
      files.push(...data.files);
      totalRows = data.rows;
    }
    const written: WrittenFile[] = [];
    if (objectPass) {
      const pass = await readingsPass(
        plan,
        io,
        workDir,
        range,
        (done) => (csv ? share : 0) + done * share,
      );
      written.push(...pass.files);
      if (!csv) totalRows = pass.rows;
    }
    const dictionary = new CsvFile(
      `${base}-data-dictionary.csv`,
      path.join(workDir, 'dictionary.csv'),
      [
        'metric_key',
        'metric_name',
        'units',
        'category',
        'description',
        'provider_source',
        'loinc',
        'open_mhealth_schema',
      ],
    );
    await dictionary.rowsOf(dictionaryRows(plan));
    written.push(await dictionary.close());

    // The files of the work directory: zipping a large XLSX takes a while, keep reporting.
    await check(0.92);
    const totalBytes = written.reduce((sum, entry) => sum + entry.bytes, 0) || 1;
    let zipped = 0;
    for (const entry of written) {
      const before = zipped;
      await zip.appendStream(entry.name, fs.createReadStream(entry.filePath), {
        // An XLSX is a ZIP already: stored, not deflated again.
        store: entry.name.endsWith('.xlsx'),
        report: (bytes) => io.progress(0.92 + (0.07 * (before + bytes)) / totalBytes),
      });
      zipped += entry.bytes;
      files.push({ name: entry.name, rows: entry.rows, bytes: entry.bytes, sha256: entry.sha256 });
    }

    const manifest = {
      product: EXPORT_PRODUCT_NAME,
      softwareVersion: plan.softwareVersion,
      exportedAt: plan.exportedAt.toISOString(),
      jobId: plan.jobId,
      request: plan.request,
      device: {
        id: plan.device.id,
        name: plan.device.friendlyName,
        brand: plan.device.brand,
        deviceType: plan.device.deviceType,
      },
      participants: plan.participants,
      dateRange: {
        startDate: plan.request.startDate,
        endDate: plan.request.endDate,
        from: range.from.toISOString(),
        toExclusive: range.to.toISOString(),
        timeBasis: 'UTC',
      },
      columns: DATA_COLUMNS,
      totalRows,
      files,
    };
    await zip.appendStream(
      `${base}-manifest.json`,
      Readable.from([JSON.stringify(manifest, null, 2) + '\n']),
      {},
    );
    await zip.finish();
    await check(0.99);
    return { files, totalRows };
  } catch (error) {
    zip.abort();
    throw error;
  }
}

type Range = { from: Date; to: Date };

/**
 * CSV data straight from the database into the ZIP. Separate tabs: one entry per
 * participant and metric (a header-only file when it has no readings); single tab: one
 * entry, the streams one after another under one header. Reports after each stream and
 * every few MB (the heartbeat; false stops the export).
 */
async function streamCsvData(
  plan: ExportPlan,
  io: ExportIo,
  zip: ZipWriter,
  range: Range,
  at: (done: number) => number,
) {
  const base = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
  const labels = (participant: ExportPlan['participants'][number]): ReadingsCsvLabels => ({
    participantCode: participant.participantCode,
    device: plan.device.friendlyName,
    metrics: plan.metrics,
  });
  const parts = plan.participants.flatMap((participant) =>
    plan.request.metrics.map((metricKey) => ({
      participant,
      metricKey,
      query: {
        teamId: plan.teamId,
        participantId: participant.participantId,
        metricKeys: [metricKey],
        brand: plan.device.brand,
        ...range,
      } satisfies ReadingsQuery,
    })),
  );
  let done = 0;
  const report = () => io.progress(at(done / Math.max(parts.length, 1)));
  const files: ExportFileEntry[] = [];
  let rows = 0;

  if (plan.request.exportMode === 'separate-tabs') {
    const usedNames = new Set<string>();
    for (const part of parts) {
      const name = `${base}-${safeFileNamePart(part.participant.participantCode)}-${safeFileNamePart(part.metricKey)}-Data.csv`;
      let unique = name;
      for (let n = 2; usedNames.has(unique); n += 1)
        unique = name.replace(/-Data\.csv$/, `-${n}-Data.csv`);
      usedNames.add(unique);
      const source = io.csv(part.query, labels(part.participant), { header: true });
      const { bytes, sha256 } = await zip.appendStream(unique, source.stream, { report });
      files.push({ name: unique, rows: source.rows(), bytes, sha256 });
      rows += source.rows();
      done += 1;
      if (!(await report())) throw new ExportCancelled();
    }
    return { files, rows };
  }

  async function* oneTable(): AsyncGenerator<Buffer | string> {
    if (parts.length === 0) yield `${DATA_COLUMNS.join(',')}\n`;
    for (const [index, part] of parts.entries()) {
      const source = io.csv(part.query, labels(part.participant), { header: index === 0 });
      yield* source.stream;
      rows += source.rows();
      done += 1;
      if (!(await report())) throw new ExportCancelled();
    }
  }
  const name = `${base}-Data.csv`;
  const { bytes, sha256 } = await zip.appendStream(name, Readable.from(oneTable()), { report });
  files.push({ name, rows, bytes, sha256 });
  return { files, rows };
}

/**
 * One pass over the readings, participant by participant in keyset pages: the XLSX data
 * (when the format is XLSX) and the optional files, written into `workDir`.
 */
async function readingsPass(
  plan: ExportPlan,
  io: ExportIo,
  workDir: string,
  range: Range,
  at: (done: number) => number,
) {
  const base = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
  const exportedAt = plan.exportedAt.toISOString();
  const metricsByKey = new Map(plan.metrics.map((metric) => [metric.metricKey, metric]));
  const extras = new Set(plan.request.extras);

  const data = plan.request.format === 'xlsx' ? await createXlsxSink(plan, workDir) : null;
  const fhir = extras.has('fhir')
    ? new TextFile(`${base}-fhir-observations.ndjson`, path.join(workDir, 'fhir.ndjson'))
    : null;
  const omh = extras.has('openmhealth')
    ? new TextFile(`${base}-openmhealth.json`, path.join(workDir, 'omh.json'))
    : null;
  const adherence = extras.has('adherence') ? createAdherence(plan, workDir) : null;
  await omh?.write('[');
  let omhFirst = true;
  let rows = 0;

  const participantCount = plan.participants.length;
  for (const [index, participant] of plan.participants.entries()) {
    const subject: SubjectInfo = { ...participant, deviceName: plan.device.friendlyName };
    const omhPoint = omh ? openMHealthSerializer(subject, exportedAt) : null;
    const seen = new Set<string>();
    const query: ReadingsQuery = {
      teamId: plan.teamId,
      participantId: participant.participantId,
      metricKeys: plan.request.metrics,
      brand: plan.device.brand,
      ...range,
    };
    for await (const page of io.iterate(query, { pageSize: io.pageSize ?? EXPORT_PAGE_SIZE })) {
      // A page is ordered by metric: split it where the metric changes.
      let start = 0;
      while (start < page.length) {
        const metricKey = page[start]!.metricKey;
        let end = start;
        while (end < page.length && page[end]!.metricKey === metricKey) end += 1;
        seen.add(metricKey);
        if (data) {
          const metric = metricsByKey.get(metricKey);
          await data.write(
            participant.participantCode,
            metricKey,
            page
              .slice(start, end)
              .map((reading) =>
                dataRow(reading, participant.participantCode, plan.device.friendlyName, metric),
              ),
          );
        }
        start = end;
      }
      rows += page.length;
      if (fhir) {
        const lines: string[] = [];
        for (const reading of page) {
          const observation = toFhirObservation(reading, subject);
          if (observation) lines.push(JSON.stringify(observation));
        }
        fhir.rows += lines.length;
        if (lines.length) await fhir.write(lines.join('\n') + '\n');
      }
      if (omh && omhPoint) {
        // Points as text straight from the readings, written in pieces of about a megabyte.
        let text = '';
        for (const reading of page) {
          const point = omhPoint(reading);
          if (point === null) continue;
          text += (omhFirst ? '\n' : ',\n') + point;
          omhFirst = false;
          omh.rows += 1;
          if (text.length >= OMH_WRITE_CHARS) {
            await omh.write(text);
            text = '';
          }
        }
        await omh.write(text);
      }
      if (adherence) for (const reading of page) adherence.add(reading);
      const within = seen.size / Math.max(plan.request.metrics.length, 1);
      if (!(await io.progress(at((index + Math.min(within, 0.99)) / participantCount))))
        throw new ExportCancelled();
    }
    if (data)
      for (const metricKey of plan.request.metrics)
        if (!seen.has(metricKey)) await data.ensure(participant.participantCode, metricKey);
    await adherence?.flush(participant);
    if (!(await io.progress(at((index + 1) / participantCount)))) throw new ExportCancelled();
  }

  const files: WrittenFile[] = data ? await data.close() : [];
  if (fhir) files.push(await fhir.close());
  if (omh) {
    await omh.write(omhFirst ? ']\n' : '\n]\n');
    files.push(await omh.close());
  }
  if (adherence) files.push(await adherence.close());
  return { files, rows };
}

/**
 * archiver checksums every entry (crc32-stream) with crc-32's JavaScript `buf`, about a
 * tenth of a large export's CPU; zlib's native crc32 (Node ≥ 20.15) gives the same numbers
 * several times faster. crc-32 is one shared CommonJS module, so its `buf` is replaced for
 * every user of it in the process, with the same results (export-writer.test.ts).
 */
export function useNativeCrc32(): boolean {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  if (typeof native !== 'function') return false;
  const nativeBuf: typeof crc32.buf & { native?: true } = (data, seed) =>
    native(
      data instanceof Uint8Array ? data : Uint8Array.from(data),
      typeof seed === 'number' ? seed >>> 0 : 0,
    ) | 0;
  nativeBuf.native = true;
  crc32.buf = nativeBuf;
  return true;
}
useNativeCrc32();

/**
 * The ZIP being written: entries one at a time from streams (back-pressure from the file
 * down to the database socket), each hashed and counted on the way into the archive.
 */
class ZipWriter {
  private readonly archive: ZipArchive;
  private readonly output: fs.WriteStream;
  private readonly done: Promise<void>;

  constructor(
    zipPath: string,
    private readonly date: Date,
    level: number,
  ) {
    this.archive = new ZipArchive({ zlib: { level, chunkSize: BATCH_BYTES } });
    this.output = fs.createWriteStream(zipPath);
    this.done = new Promise<void>((resolve, reject) => {
      this.output.on('close', () => resolve());
      this.output.on('error', reject);
      this.archive.on('error', reject);
      this.archive.on('warning', reject);
    });
    // Observed by whoever waits on an entry or the end; an abort must not surface twice.
    this.done.catch(() => undefined);
    this.archive.pipe(this.output);
  }

  /**
   * Adds `source` as the entry `name` and resolves once it is in the archive, with its
   * size and SHA-256. `report(bytes)` runs every few MB; false stops with ExportCancelled.
   */
  async appendStream(
    name: string,
    source: Readable,
    options: { store?: boolean; report?: (bytes: number) => Promise<boolean> },
  ): Promise<{ bytes: number; sha256: string }> {
    const hash = createHash('sha256');
    let bytes = 0;
    let reported = 0;
    const report = options.report;
    // Chunks from the database socket are small (tens of KB); each one that reaches the
    // deflate stream and the file costs a thread-pool round trip, so they go on in batches.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = () => {
      const batch = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return batch;
    };
    const tap = new Transform({
      transform(chunk: Buffer | string, _encoding, callback) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        hash.update(buffer);
        bytes += buffer.length;
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes < BATCH_BYTES) return callback();
        if (!report || bytes - reported < REPORT_EVERY_BYTES) return callback(null, take());
        reported = bytes;
        report(bytes).then(
          (goOn) => (goOn ? callback(null, take()) : callback(new ExportCancelled())),
          callback,
        );
      },
      flush(callback) {
        callback(null, pendingBytes > 0 ? take() : undefined);
      },
    });
    const appended = new Promise<void>((resolve, reject) => {
      const onEntry = (entry: { name: string }) => {
        if (entry.name !== name) return;
        this.archive.off('entry', onEntry);
        resolve();
      };
      this.archive.on('entry', onEntry);
      this.done.catch(reject);
    });
    this.archive.append(tap, { name, date: this.date, store: options.store ?? false });
    await Promise.all([pipeline(source, tap), appended]);
    return { bytes, sha256: hash.digest('hex') };
  }

  /** Writes the central directory and closes the file. */
  async finish(): Promise<void> {
    await Promise.all([this.archive.finalize(), this.done]);
  }

  /** Stops writing (cancel or failure); the caller removes the part file. */
  abort(): void {
    this.archive.abort();
    this.output.destroy();
  }
}
