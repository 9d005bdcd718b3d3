import {
  EXPORT_PRODUCT_NAME,
  safeFileNamePart,
  type ExportExtra,
  type ExportFormat,
  type ExportMode,
} from '@trialpulse/shared';
import type { DeviceBrand } from '../../db/schema';
import type { ReadingsCsv, ReadingsCsvLabels } from '../sync/readings-csv';
import type { DayOffset, ReadingsQuery, StoredReading } from '../sync/readings.service';

/** What the writer needs about a metric (from the metric catalog). */
export type MetricInfo = {
  metricKey: string;
  metricName: string;
  units: string | null;
  category: string | null;
  description: string | null;
};

/** One export as the writer and its sinks see it: the request, and what the run looked up for it. */
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
  participants: ExportParticipantRef[];
  metrics: MetricInfo[];
  softwareVersion: string;
  exportedAt: Date;
};

export type ExportParticipantRef = { participantId: number; participantCode: string };

export type ExportFileEntry = { name: string; rows: number; bytes: number; sha256: string };
export type ExportResult = { files: ExportFileEntry[]; totalRows: number };

export type ExportIo = {
  /** Pages of stored readings (ReadingsService.iterate): XLSX data and the optional files. */
  iterate(query: ReadingsQuery, options: { pageSize?: number }): AsyncIterable<StoredReading[]>;
  /** The readings as CSV formatted by the database (ReadingsService.csv): CSV data files. */
  csv(query: ReadingsQuery, labels: ReadingsCsvLabels, options: { header: boolean }): ReadingsCsv;
  /**
   * A participant's local days in the range with the UTC offsets they began and ended with
   * (ReadingsService.dayOffsets): Open mHealth writes a daily value's interval with them.
   */
  dayOffsets(
    teamId: number,
    participantId: number,
    days: { start: string; end: string },
  ): Promise<DayOffset[]>;
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

const HOUR_MS = 60 * 60 * 1000;

/**
 * The request's dates as participant-local days (decision 0182): readings whose local civil
 * day (`civil-days`) is in [startDate, endDate], read from a window of instants wide enough
 * for every offset (UTC−12 … UTC+14) and a session that counts on its end.
 */
export function exportRange(plan: ExportPlan): {
  from: Date;
  to: Date;
  localDays: { start: string; end: string };
} {
  return {
    from: new Date(Date.parse(`${plan.request.startDate}T00:00:00Z`) - 38 * HOUR_MS),
    to: new Date(Date.parse(`${plan.request.endDate}T00:00:00Z`) + 36 * HOUR_MS),
    localDays: { start: plan.request.startDate, end: plan.request.endDate },
  };
}

/** `TrialPulse-<file name>`: every file of the ZIP starts with it (decision 0046). */
export function exportBaseName(plan: ExportPlan): string {
  return `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(plan.request.fileName)}`;
}
