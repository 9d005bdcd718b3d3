import type { StoredReading } from '../../sync/readings.service';
import type { ExportIo, ExportParticipantRef, ExportPlan } from '../export-plan';
import type { ZipWriter } from '../export-zip';
import type { WrittenFile } from './sink-files';

/**
 * One file format of an export (the data as CSV or XLSX, or an optional file: FHIR, Open
 * mHealth, adherence). The writer opens every sink the request asks for, hands each one
 * the readings participant by participant, closes them, and zips what they wrote
 * (sink-registry.ts says which sink serves which format; decision 0150).
 */
export type ExportSink = {
  /**
   * Where its readings come from: `pages` — keyset pages of row objects
   * (ReadingsService.iterate), one pass shared by every such sink; `database-csv` — the
   * sink reads the database's CSV itself (`context.io.csv`) and gets only each
   * participant's end page. The `database-csv` sinks run first, then the pass over pages.
   */
  readonly reads: 'pages' | 'database-csv';
  /** Before the first participant: creates its work files (or its ZIP entry). */
  open(): Promise<void>;
  /**
   * One page of a participant's readings, ordered by metric then time; the participant's
   * last call has `end: true` and no readings (also for a participant without readings).
   * Throws ExportCancelled when a progress report answers false.
   */
  writePage(page: ExportPage): Promise<void>;
  /**
   * After the last participant: the files it wrote into the work directory, to be zipped
   * in this order, and the entries it put into the ZIP itself (CSV data).
   */
  close(): Promise<SinkOutput>;
};

export type ExportPage = {
  participant: ExportParticipantRef;
  /** The participant's position in the plan (0-based). */
  index: number;
  readings: StoredReading[];
  end: boolean;
};

export type SinkOutput = {
  /** Files in the work directory, zipped after every sink is closed. */
  files: WrittenFile[];
  /** Entries the sink wrote into the ZIP as it went (rows counted, SHA-256 of the content). */
  zipped?: { name: string; rows: number; bytes: number; sha256: string }[];
  /** Rows of the export's data (the data sink only: the manifest's total). */
  dataRows?: number;
  /**
   * Rows the sink adds to the column dictionary (file, column, meaning) after the common
   * ones: what its own files hold and how to read them.
   */
  columnNotes?: (readonly [string, string, string])[];
};

/** What a sink is built with. */
export type SinkContext = {
  plan: ExportPlan;
  io: ExportIo;
  workDir: string;
  zip: ZipWriter;
  /**
   * The share of its phase done (0–1): reports progress (heartbeat and cancel check);
   * false means stop (throw ExportCancelled). For sinks that report inside a participant.
   */
  progress(done: number): Promise<boolean>;
};

/** Builds a sink for one export. */
export type SinkFactory = (context: SinkContext) => ExportSink | Promise<ExportSink>;
