import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { EXPORT_PRODUCT_NAME } from '@trialpulse/shared';
import { neutralise } from '../../lib/csv-safe';
import { DEMO_DEVICE } from '../sync/reading-device';
import { READINGS_CSV_COLUMNS } from '../sync/readings-csv';
import type { ReadingsQuery } from '../sync/readings.service';
import {
  ExportCancelled,
  exportBaseName,
  exportRange,
  type ExportFileEntry,
  type ExportIo,
  type ExportPlan,
  type ExportResult,
} from './export-plan';
import { FHIR_MAPPINGS, OMH_MAPPINGS } from './export-standards';
import { ZipWriter } from './export-zip';
import type { ExportSink, SinkContext } from './sinks/export-sink';
import { DATA_SINKS, EXTRA_SINKS } from './sinks/sink-registry';
import { CsvFile, type Cell, type WrittenFile } from './sinks/sink-files';

/** Rows per database page: one page (objects and its CSV text) is what an export holds in memory. */
export const EXPORT_PAGE_SIZE = 5_000;

/**
 * Deflate level of the ZIP (decision 0049): 1, zlib's fastest. Readings CSV repeats itself
 * so much that level 6 saves little space and costs most of an export's time.
 */
export const EXPORT_ZIP_LEVEL = 1;

/** The data files' columns (decision 0046), as the readings module writes them. */
export const DATA_COLUMNS = READINGS_CSV_COLUMNS;

/**
 * Builds the ZIP of one export at `zipPath`, written as it goes (decision 0048), through one
 * sink per file format (decision 0150; sinks/sink-registry.ts): the data sink of the
 * request's format and one per optional file. Sinks that read the database's CSV (the CSV
 * data: `COPY … TO STDOUT` on PostgreSQL, piped straight into its ZIP entries) run first;
 * then one pass over keyset pages of readings feeds the others (XLSX data, FHIR, Open
 * mHealth, adherence), which write files in `workDir`, zipped after. Then the data
 * dictionary and the manifest. Memory holds a stream's buffers, one page of readings and
 * one participant's adherence days, whatever the size of the export.
 * Throws ExportCancelled when `io.progress` answers false (the job was cancelled).
 */
export async function writeExport(
  plan: ExportPlan,
  io: ExportIo,
  workDir: string,
  zipPath: string,
): Promise<ExportResult> {
  const base = exportBaseName(plan);
  const range = exportRange(plan);
  const check = async (fraction: number) => {
    if (!(await io.progress(fraction))) throw new ExportCancelled();
  };

  const zip = new ZipWriter(zipPath, plan.exportedAt, io.zipLevel ?? EXPORT_ZIP_LEVEL);
  try {
    // Progress of the phase running now (0–1 of it) as a share of the whole export.
    let at = (done: number) => done;
    const context: SinkContext = {
      plan,
      io,
      workDir,
      zip,
      progress: (done) => io.progress(at(done)),
    };
    const extras = new Set(plan.request.extras);
    const factories = [
      DATA_SINKS[plan.request.format],
      ...Object.entries(EXTRA_SINKS)
        .filter(([extra]) => extras.has(extra as keyof typeof EXTRA_SINKS))
        .map(([, factory]) => factory),
    ];
    const sinks: ExportSink[] = [];
    for (const factory of factories) sinks.push(await factory(context));
    const phases = [
      sinks.filter((sink) => sink.reads === 'database-csv'),
      sinks.filter((sink) => sink.reads === 'pages'),
    ].filter((phase) => phase.length > 0);
    // Reading shares 0–90 % between the phases.
    const share = 0.9 / phases.length;

    const files: ExportFileEntry[] = [];
    const written: WrittenFile[] = [];
    let totalRows = 0;
    const columnNotes: (readonly [string, string, string])[] = [];
    for (const [number, phase] of phases.entries()) {
      at = (done) => number * share + done * share;
      for (const sink of phase) await sink.open();
      if (phase[0]!.reads === 'pages') await pagesPass(plan, io, phase, range, at);
      else
        for (const [index, participant] of plan.participants.entries())
          for (const sink of phase)
            await sink.writePage({ participant, index, readings: [], end: true });
      for (const sink of phase) {
        const output = await sink.close();
        files.push(...(output.zipped ?? []));
        written.push(...output.files);
        if (output.dataRows !== undefined) totalRows = output.dataRows;
        columnNotes.push(...(output.columnNotes ?? []));
      }
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
    const columns = new CsvFile(
      `${base}-data-dictionary-columns.csv`,
      path.join(workDir, 'dictionary-columns.csv'),
      ['file', 'column', 'meaning'],
    );
    await columns.rowsOf([...COLUMN_DICTIONARY, ...columnNotes].map((row) => [...row]));
    written.push(await columns.close());

    // The files of the work directory: zipping a large XLSX takes a while, keep reporting.
    await check(0.92);
    const totalBytes = written.reduce((sum, entry) => sum + entry.bytes, 0) || 1;
    let zipped = 0;
    for (const entry of written) {
      const before = zipped;
      await zip.appendStream(entry.name, fs.createReadStream(entry.filePath), {
        // An XLSX (a ZIP) or a Parquet file is compressed already: stored, not deflated again.
        store: entry.compressed ?? false,
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
        timeBasis: 'participant local day',
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

/**
 * One pass over the readings, participant by participant in keyset pages, each page handed
 * to every sink of the phase; then the participant's end page. Reports after each page
 * and each participant (the heartbeat; false stops the export).
 */
async function pagesPass(
  plan: ExportPlan,
  io: ExportIo,
  sinks: ExportSink[],
  range: ReturnType<typeof exportRange>,
  at: (done: number) => number,
) {
  const participantCount = plan.participants.length;
  for (const [index, participant] of plan.participants.entries()) {
    const seen = new Set<string>();
    const query: ReadingsQuery = {
      teamId: plan.teamId,
      participantId: participant.participantId,
      metricKeys: plan.request.metrics,
      brand: plan.device.brand,
      ...range,
    };
    for await (const readings of io.iterate(query, { pageSize: io.pageSize ?? EXPORT_PAGE_SIZE })) {
      for (const reading of readings) seen.add(reading.metricKey);
      for (const sink of sinks) await sink.writePage({ participant, index, readings, end: false });
      const within = seen.size / Math.max(plan.request.metrics.length, 1);
      if (!(await io.progress(at((index + Math.min(within, 0.99)) / participantCount))))
        throw new ExportCancelled();
    }
    for (const sink of sinks) await sink.writePage({ participant, index, readings: [], end: true });
    if (!(await io.progress(at((index + 1) / participantCount)))) throw new ExportCancelled();
  }
}

/**
 * What every column of the data files and the adherence file means, and the timestamp and
 * identifier conventions of every format (issue 28, decisions 0180, 0182, 0183).
 */
export const COLUMN_DICTIONARY: readonly (readonly [string, string, string])[] = [
  ['Data (CSV, XLSX)', 'participant_id', 'TrialPulse id of the participant'],
  ['Data (CSV, XLSX)', 'participant_code', "The trial's participant code (no personal data)"],
  [
    'Data (CSV, XLSX)',
    'device',
    `The device the reading came with, as its provider reported it: brand and model (Google Health's data-source device, Omron's device model, Dexcom's transmitter generation and display device); "${DEMO_DEVICE}" for the demo's seeded readings. Not the device chosen on the export form (the manifest's device)`,
  ],
  ['Data (CSV, XLSX)', 'metric_key', 'Metric (see the data dictionary for names, units and codes)'],
  ['Data (CSV, XLSX)', 'metric_name', 'Metric name in the catalog'],
  ['Data (CSV, XLSX)', 'units', 'Units of value'],
  [
    'Data (CSV, XLSX)',
    'recorded_at_utc',
    'Instant of the reading in UTC (ISO 8601, Z); a session starts here; a daily value is stored at 00:00 UTC of its date',
  ],
  [
    'Data (CSV, XLSX)',
    'local_time',
    "The participant's wall-clock time (recorded_at_utc + utc_offset_minutes, no offset written); a daily value: its date",
  ],
  [
    'Data (CSV, XLSX)',
    'utc_offset_minutes',
    "The participant's UTC offset at the reading as the provider said it; empty for a daily value",
  ],
  ['Data (CSV, XLSX)', 'end_at_utc', 'End of a session (sleep) in UTC; empty otherwise'],
  ['Data (CSV, XLSX)', 'value', 'The value in the metric’s units'],
  [
    'Data (CSV, XLSX)',
    'value_json',
    'Structured parts of the reading (sleep stages, Dexcom trend and status)',
  ],
  [
    'Data (CSV, XLSX)',
    'data_source',
    "The provider's data source or device id (Google Health's device name, Omron's device model, Dexcom's transmitter id)",
  ],
  [
    'Data (CSV, XLSX)',
    'upstream',
    'The provider API that delivered the reading (google-health, fitbit-legacy, omron, dexcom); demo: seeded by the TrialPulse demo, no provider',
  ],
  [
    'All files',
    '(date range)',
    "Start and end dates are the participant's local days: a reading counts on the date of its instant (a session: its end) plus its offset",
  ],
  ['Adherence', 'date', "The participant's local civil day"],
  ['Adherence', 'readings', 'Readings of the exported metrics on that day'],
  ['Adherence', 'heart_rate_minutes', 'Distinct minutes with at least one heart-rate sample'],
  ['Adherence', 'sensor_hours', 'Local clock hours with any intraday sample'],
  [
    'FHIR',
    'Observation.subject',
    'Patient/participant-<participant_id>, identifier system urn:trialpulse:participant = participant_code',
  ],
  ['FHIR', 'Patient', 'One per participant: the identifier only, no personal data'],
  [
    'FHIR',
    'Group',
    'The trial (identifier system urn:trialpulse:trial = its TrialPulse id) and its exported participants',
  ],
  [
    'FHIR',
    'effective[x]',
    'effectiveDateTime in UTC; a daily value: its local date; a session: effectivePeriod in UTC',
  ],
  ['FHIR', 'Observation.device.display', 'The device the reading came with (as the device column)'],
  [
    'Open mHealth',
    'acquisition_provenance.source_name',
    'The device the reading came with (as the device column)',
  ],
  [
    'Open mHealth',
    'effective_time_frame',
    'date_time in UTC; a session: time_interval in UTC; a daily value: its local day, midnight to midnight with the offsets it began and ended with',
  ],
];

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
