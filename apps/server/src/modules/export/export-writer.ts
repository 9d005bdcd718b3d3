import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import { ZipArchive } from 'archiver';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import { EXPORT_PRODUCT_NAME, safeFileNamePart, type ExportExtra, type ExportFormat, type ExportMode } from '@trialpulse/shared';
import type { DeviceBrand } from '../../db/schema';
import type { ReadingsQuery, StoredReading } from '../sync/readings.service';
import { FHIR_MAPPINGS, OMH_MAPPINGS, toFhirObservation, toOpenMHealth, type SubjectInfo } from './export-standards';

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
  /** Pages of stored readings (ReadingsService.iterate). */
  iterate(query: ReadingsQuery, options: { pageSize?: number }): AsyncIterable<StoredReading[]>;
  /** Called after each page with the share done (0–1); false stops the export (cancelled). */
  progress(fraction: number): Promise<boolean>;
  /** Rows per page read from the database (default EXPORT_PAGE_SIZE). */
  pageSize?: number;
};

export class ExportCancelled extends Error {
  constructor() {
    super('export cancelled');
    this.name = 'ExportCancelled';
  }
}

/** Rows per database page: one page (objects and its CSV text) is what an export holds in memory. */
export const EXPORT_PAGE_SIZE = 10_000;

/** Excel's last row; a longer single tab continues on a sheet named "… (2)". */
const XLSX_MAX_ROWS = 1_048_576;
const DAY_MS = 24 * 60 * 60 * 1000;

export const DATA_COLUMNS = [
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
 * Spreadsheet formula injection (OWASP CSV injection): a text cell starting with = + - @
 * (or a tab or carriage return) is prefixed with an apostrophe so no spreadsheet runs it.
 * Numbers stay numbers (a negative trend rate is data, not a formula).
 */
export function neutralise(value: string): string {
  return /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
}

type Cell = string | number | null;

/** ISO local time from the instant and the participant's offset then (daily readings: the date). */
function localTime(reading: StoredReading): string {
  if (reading.utcOffsetMinutes === null) return reading.recordedAt.toISOString().slice(0, 10);
  const local = new Date(reading.recordedAt.getTime() + reading.utcOffsetMinutes * 60_000);
  return local.toISOString().slice(0, 19);
}

function dataRow(reading: StoredReading, code: string, device: string, metric: MetricInfo | undefined): Cell[] {
  return [
    reading.participantId,
    neutralise(code),
    neutralise(device),
    reading.metricKey,
    neutralise(metric?.metricName ?? reading.metricKey),
    metric?.units ? neutralise(metric.units) : null,
    reading.recordedAt.toISOString(),
    localTime(reading),
    reading.utcOffsetMinutes,
    reading.endAt ? reading.endAt.toISOString() : null,
    reading.value,
    reading.valueJson === null || reading.valueJson === undefined ? null : neutralise(JSON.stringify(reading.valueJson)),
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
    return { name: this.name, rows: this.rows, bytes: this.bytes, sha256: this.hash.digest('hex'), filePath: this.filePath };
  }
}

/** A CSV file through csv-stringify, one chunk per page of rows. */
class CsvFile extends TextFile {
  private started = false;
  constructor(name: string, filePath: string, private readonly columns: readonly string[]) {
    super(name, filePath);
  }
  async rowsOf(rows: Cell[][]): Promise<void> {
    const header = !this.started;
    this.started = true;
    this.rows += rows.length;
    await this.write(stringify(rows, { header, columns: header ? [...this.columns] : undefined, cast: { string: (value) => value } }));
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
    for (let n = 2; used.has(name.toLowerCase()); n += 1) name = `${base.slice(0, 31 - String(n).length - 3)} (${n})`;
    used.add(name.toLowerCase());
    return name;
  };
}

/**
 * The data files in one of the two modes and formats. Separate tabs: one CSV per
 * participant and metric, or one XLSX sheet each; single tab: one long table.
 */
function createDataSink(plan: ExportPlan, workDir: string) {
  const base = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
  const separate = plan.request.exportMode === 'separate-tabs';
  const entries: WrittenFile[] = [];

  if (plan.request.format === 'csv') {
    let current: { key: string; file: CsvFile } | undefined;
    const usedNames = new Set<string>();
    const open = async (key: string, name: string) => {
      if (current?.key === key) return current.file;
      if (current) entries.push(await current.file.close());
      let unique = name;
      for (let n = 2; usedNames.has(unique); n += 1) unique = name.replace(/-Data\.csv$/, `-${n}-Data.csv`);
      usedNames.add(unique);
      current = { key, file: new CsvFile(unique, path.join(workDir, `data-${usedNames.size}.csv`), DATA_COLUMNS) };
      return current.file;
    };
    return {
      async write(code: string, metricKey: string, rows: Cell[][]) {
        const file = separate
          ? await open(`${code}|${metricKey}`, `${base}-${safeFileNamePart(code)}-${safeFileNamePart(metricKey)}-Data.csv`)
          : await open('all', `${base}-Data.csv`);
        await file.rowsOf(rows);
      },
      /** Separate tabs: a participant's metric without rows still gets its (header-only) file. */
      async ensure(code: string, metricKey: string) {
        if (separate) await this.write(code, metricKey, []);
      },
      async close() {
        if (!current && !separate) await open('all', `${base}-Data.csv`);
        if (current) entries.push(await current.file.close());
        current = undefined;
        return entries;
      },
    };
  }

  const name = `${base}-Data.xlsx`;
  const filePath = path.join(workDir, 'data.xlsx');
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: filePath, useStyles: false, useSharedStrings: false });
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
      // Let the workbook's zip stream drain before the next page.
      await new Promise((resolve) => setImmediate(resolve));
    },
    async ensure(code: string, metricKey: string) {
      if (separate) openSheet(`${code}|${metricKey}`, `${code}-${metricKey}`);
    },
    async close() {
      if (!sheet) openSheet('all', 'Data');
      sheet?.worksheet.commit();
      await workbook.commit();
      entries.push(await describeFile(name, filePath, totalRows));
      return entries;
    },
  };
}

/** Per participant and day: readings, heart-rate minutes, hours with any intraday sample (decision 0046). */
function createAdherence(plan: ExportPlan, workDir: string) {
  const file = new CsvFile(
    `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}-adherence.csv`,
    path.join(workDir, 'adherence.csv'),
    ['participant_id', 'participant_code', 'date', 'readings', 'heart_rate_minutes', 'sensor_hours'],
  );
  let days = new Map<string, { readings: number; hrMinutes: number; lastHrMinute: number; hours: number }>();
  return {
    add(reading: StoredReading) {
      const day = reading.recordedAt.toISOString().slice(0, 10);
      let entry = days.get(day);
      if (!entry) days.set(day, (entry = { readings: 0, hrMinutes: 0, lastHrMinute: -1, hours: 0 }));
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
    OMH_MAPPINGS[metric.metricKey] ? `omh:${OMH_MAPPINGS[metric.metricKey]!.name}:${OMH_MAPPINGS[metric.metricKey]!.version}` : null,
  ]);
}

/**
 * Builds the ZIP of one export at `zipPath`: streams the stored readings participant by
 * participant (keyset pages, never one big result) into the data files and the optional
 * files in `workDir`, then zips them with the data dictionary and the manifest. Memory
 * holds one page of readings and one participant's adherence days.
 */
export async function writeExport(plan: ExportPlan, io: ExportIo, workDir: string, zipPath: string): Promise<ExportResult> {
  const base = `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
  const from = new Date(`${plan.request.startDate}T00:00:00Z`);
  const to = new Date(Date.parse(`${plan.request.endDate}T00:00:00Z`) + DAY_MS);
  const exportedAt = plan.exportedAt.toISOString();
  const metricsByKey = new Map(plan.metrics.map((metric) => [metric.metricKey, metric]));
  const extras = new Set(plan.request.extras);

  const data = createDataSink(plan, workDir);
  const fhir = extras.has('fhir') ? new TextFile(`${base}-fhir-observations.ndjson`, path.join(workDir, 'fhir.ndjson')) : null;
  const omh = extras.has('openmhealth') ? new TextFile(`${base}-openmhealth.json`, path.join(workDir, 'omh.json')) : null;
  const adherence = extras.has('adherence') ? createAdherence(plan, workDir) : null;
  await omh?.write('[');
  let omhFirst = true;
  let totalRows = 0;

  const participantCount = plan.participants.length;
  for (const [index, participant] of plan.participants.entries()) {
    const subject: SubjectInfo = { ...participant, deviceName: plan.device.friendlyName };
    const seen = new Set<string>();
    const query: ReadingsQuery = {
      teamId: plan.teamId,
      participantId: participant.participantId,
      metricKeys: plan.request.metrics,
      brand: plan.device.brand,
      from,
      to,
    };
    for await (const page of io.iterate(query, { pageSize: io.pageSize ?? EXPORT_PAGE_SIZE })) {
      // A page is ordered by metric: split it where the metric changes.
      let start = 0;
      while (start < page.length) {
        const metricKey = page[start]!.metricKey;
        let end = start;
        while (end < page.length && page[end]!.metricKey === metricKey) end += 1;
        const slice = page.slice(start, end);
        seen.add(metricKey);
        const metric = metricsByKey.get(metricKey);
        await data.write(
          participant.participantCode,
          metricKey,
          slice.map((reading) => dataRow(reading, participant.participantCode, plan.device.friendlyName, metric)),
        );
        start = end;
      }
      totalRows += page.length;
      if (fhir) {
        const lines: string[] = [];
        for (const reading of page) {
          const observation = toFhirObservation(reading, subject);
          if (observation) lines.push(JSON.stringify(observation));
        }
        fhir.rows += lines.length;
        if (lines.length) await fhir.write(lines.join('\n') + '\n');
      }
      if (omh) {
        const points: string[] = [];
        for (const reading of page) {
          const point = toOpenMHealth(reading, subject, exportedAt);
          if (point) points.push(JSON.stringify(point));
        }
        if (points.length) {
          await omh.write((omhFirst ? '\n' : ',\n') + points.join(',\n'));
          omhFirst = false;
          omh.rows += points.length;
        }
      }
      if (adherence) for (const reading of page) adherence.add(reading);
      const within = seen.size / Math.max(plan.request.metrics.length, 1);
      if (!(await io.progress((0.9 * (index + Math.min(within, 0.99))) / participantCount))) throw new ExportCancelled();
    }
    for (const metricKey of plan.request.metrics) if (!seen.has(metricKey)) await data.ensure(participant.participantCode, metricKey);
    await adherence?.flush(participant);
    if (!(await io.progress((0.9 * (index + 1)) / participantCount))) throw new ExportCancelled();
  }

  const written: WrittenFile[] = [...(await data.close())];
  if (fhir) written.push(await fhir.close());
  if (omh) {
    await omh.write(omhFirst ? ']\n' : '\n]\n');
    written.push(await omh.close());
  }
  if (adherence) written.push(await adherence.close());
  const dictionary = new CsvFile(`${base}-data-dictionary.csv`, path.join(workDir, 'dictionary.csv'), [
    'metric_key',
    'metric_name',
    'units',
    'category',
    'description',
    'provider_source',
    'loinc',
    'open_mhealth_schema',
  ]);
  await dictionary.rowsOf(dictionaryRows(plan));
  written.push(await dictionary.close());
  const files: ExportFileEntry[] = written.map(({ name, rows, bytes, sha256 }) => ({ name, rows, bytes, sha256 }));

  const manifest = {
    product: EXPORT_PRODUCT_NAME,
    softwareVersion: plan.softwareVersion,
    exportedAt,
    jobId: plan.jobId,
    request: plan.request,
    device: { id: plan.device.id, name: plan.device.friendlyName, brand: plan.device.brand, deviceType: plan.device.deviceType },
    participants: plan.participants,
    dateRange: { startDate: plan.request.startDate, endDate: plan.request.endDate, from: from.toISOString(), toExclusive: to.toISOString(), timeBasis: 'UTC' },
    columns: DATA_COLUMNS,
    totalRows,
    files,
  };

  if (!(await io.progress(0.92))) throw new ExportCancelled();
  const output = fs.createWriteStream(zipPath);
  const archive = new ZipArchive({ zlib: { level: 6 } });
  let stopArchive: (error: Error) => void = () => undefined;
  const archiveDone = new Promise<void>((resolve, reject) => {
    stopArchive = reject;
    output.on('close', () => resolve());
    output.on('error', reject);
    archive.on('error', reject);
    archive.on('warning', reject);
  });
  archive.pipe(output);
  // Zipping a large export takes a while: keep reporting (the heartbeat) and stop on cancel.
  const totalBytes = written.reduce((sum, entry) => sum + entry.bytes, 0) || 1;
  let reporting = false;
  archive.on('progress', (progress) => {
    if (reporting) return;
    reporting = true;
    io.progress(0.92 + (0.07 * Math.min(progress.fs.processedBytes, totalBytes)) / totalBytes)
      .then((goOn) => {
        if (goOn) return;
        archive.abort();
        output.destroy();
        stopArchive(new ExportCancelled());
      })
      .catch((error: Error) => {
        archive.abort();
        output.destroy();
        stopArchive(error);
      })
      .finally(() => {
        reporting = false;
      });
  });
  for (const entry of written) archive.file(entry.filePath, { name: entry.name, date: plan.exportedAt });
  archive.append(JSON.stringify(manifest, null, 2) + '\n', { name: `${base}-manifest.json`, date: plan.exportedAt });
  await Promise.all([archive.finalize(), archiveDone]);
  if (!(await io.progress(0.99))) throw new ExportCancelled();
  return { files, totalRows };
}
