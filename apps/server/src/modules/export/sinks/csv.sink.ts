import { PassThrough, type Readable } from 'node:stream';
import { safeFileNamePart } from '@trialpulse/shared';
import { READINGS_CSV_COLUMNS, type ReadingsCsvLabels } from '../../sync/readings-csv';
import type { ReadingsQuery } from '../../sync/readings.service';
import {
  ExportCancelled,
  exportBaseName,
  exportRange,
  type ExportParticipantRef,
} from '../export-plan';
import type { ExportSink, SinkContext, SinkOutput } from './export-sink';

/**
 * The data as CSV, straight from the database into the ZIP (decisions 0048, 0106): the
 * readings formatted by the database (`COPY … TO STDOUT` on PostgreSQL), one stream per
 * participant and metric piped into its entry, hashed and counted on the way. Separate
 * tabs: one entry per participant and metric (a header-only file when it has no readings);
 * single tab: one entry, the streams one after another under one header. Reports after
 * each stream and every few MB (the heartbeat; false stops the export).
 */
export function csvSink({ plan, io, zip, progress }: SinkContext): ExportSink {
  const base = exportBaseName(plan);
  const range = exportRange(plan);
  const parts = Math.max(plan.participants.length * plan.request.metrics.length, 1);
  const separate = plan.request.exportMode === 'separate-tabs';
  const zipped: NonNullable<SinkOutput['zipped']> = [];
  const usedNames = new Set<string>();
  let done = 0;
  let rows = 0;
  const report = () => progress(done / parts);
  const labels = (participant: ExportParticipantRef): ReadingsCsvLabels => ({
    participantCode: participant.participantCode,
    metrics: plan.metrics,
  });
  const query = (participant: ExportParticipantRef, metricKey: string): ReadingsQuery => ({
    teamId: plan.teamId,
    participantId: participant.participantId,
    metricKeys: [metricKey],
    brand: plan.device.brand,
    ...range,
  });

  // Single tab: one entry open from the first participant to the close.
  const singleName = `${base}-Data.csv`;
  let single:
    { entry: PassThrough; appended: Promise<{ bytes: number; sha256: string }> } | undefined;
  let headerWritten = false;

  return {
    reads: 'database-csv',
    async open() {
      if (separate) return;
      const entry = new PassThrough();
      const appended = zip.appendStream(singleName, entry, { report });
      // Observed in writePage or close; a failed export must not report it twice.
      appended.catch(() => undefined);
      single = { entry, appended };
    },
    async writePage({ participant, end }) {
      if (!end) return;
      for (const metricKey of plan.request.metrics) {
        if (single) {
          const source = io.csv(query(participant, metricKey), labels(participant), {
            header: !headerWritten,
          });
          headerWritten = true;
          try {
            await copyInto(source.stream, single.entry);
          } catch (error) {
            // A report refused inside the entry (ExportCancelled) broke the pipe: that is the cause.
            single.entry.destroy();
            throw await single.appended.then(
              () => error,
              (entryError: unknown) => (entryError instanceof ExportCancelled ? entryError : error),
            );
          }
          rows += source.rows();
        } else {
          const name = `${base}-${safeFileNamePart(participant.participantCode)}-${safeFileNamePart(metricKey)}-Data.csv`;
          let unique = name;
          for (let n = 2; usedNames.has(unique); n += 1)
            unique = name.replace(/-Data\.csv$/, `-${n}-Data.csv`);
          usedNames.add(unique);
          const source = io.csv(query(participant, metricKey), labels(participant), {
            header: true,
          });
          const { bytes, sha256 } = await zip.appendStream(unique, source.stream, { report });
          zipped.push({ name: unique, rows: source.rows(), bytes, sha256 });
          rows += source.rows();
        }
        done += 1;
        if (!(await report())) throw new ExportCancelled();
      }
    },
    async close() {
      if (single) {
        if (!headerWritten) single.entry.write(`${READINGS_CSV_COLUMNS.join(',')}\n`);
        single.entry.end();
        const { bytes, sha256 } = await single.appended;
        zipped.push({ name: singleName, rows, bytes, sha256 });
      }
      return { files: [], zipped, dataRows: rows };
    },
  };
}

/**
 * Copies `source` into the open entry with back-pressure and leaves the entry open for the
 * next stream. Not `pipeline(…, { end: false })`: that leaves a listener on the entry per
 * stream, thousands in an export of many participants and metrics.
 */
async function copyInto(source: Readable, entry: PassThrough): Promise<void> {
  for await (const chunk of source) {
    if (entry.destroyed) throw new Error('export entry closed');
    if (entry.write(chunk)) continue;
    await new Promise<void>((resolve, reject) => {
      const settle = (error?: Error) => {
        entry.off('drain', drained);
        entry.off('close', closed);
        if (error) reject(error);
        else resolve();
      };
      const drained = () => settle();
      const closed = () => settle(new Error('export entry closed'));
      entry.on('drain', drained);
      entry.on('close', closed);
    });
  }
}
