import path from 'node:path';
import { readingDevice } from '../sync/reading-device';
import { ExportCancelled, type ExportIo, type ExportParticipantRef } from './export-plan';
import { fhirDevice, fhirGroup, fhirObservationBuilder, fhirPatient } from './export-standards';
import { TextFile } from './sinks/sink-files';

/** The resource types a FHIR Bulk Data export of a trial serves (`_type`), in the order written. */
export const BULK_TYPES = ['Group', 'Patient', 'Device', 'Observation'] as const;
export type BulkType = (typeof BULK_TYPES)[number];

/** Resources per NDJSON file: a type with more is split into several files (the manifest lists each). */
export const BULK_RESOURCES_PER_FILE = 100_000;

/** The file of a committed Bulk Data export that lists its NDJSON files (read by the status call). */
export const BULK_FILES_ENTRY = 'files.json';

/** One Bulk Data export as the writer sees it: the kick-off's request and what the run looked up. */
export type BulkPlan = {
  teamId: number;
  trialId: number;
  types: readonly BulkType[];
  /** `_since`: only readings stored or changed after it (null: all). */
  since: Date | null;
  /** The manifest's `transactionTime`: readings stored or changed after it are left to the next export. */
  transactionTime: Date;
  /** The trial's participants, in code order. */
  participants: ExportParticipantRef[];
};

/** One NDJSON file of the export: its resource type, its name in the directory and its resources. */
export type BulkFile = { type: BulkType | 'OperationOutcome'; name: string; count: number };
/** What `writeBulkExport` wrote (also stored as `files.json` beside the files). */
export type BulkFiles = { output: BulkFile[]; error: BulkFile[] };

/** Readings are stored from 2000 on (readings.service.ts refuses earlier ones). */
const EARLIEST_READING = new Date(Date.UTC(2000, 0, 1));
/** Readings up to two days in the future are accepted; the window reaches a little past that. */
const FUTURE_WINDOW_MS = 3 * 24 * 60 * 60 * 1000;

/**
 * Writes a FHIR Bulk Data export of a trial (issue 31) as NDJSON files in `workDir`, one or more
 * per resource type asked for, and `files.json` listing them: the trial as a Group of its
 * participants, a Patient per participant (as the ZIP's FHIR files have them: the code only),
 * the Observations of every reading with a LOINC mapping (the builder the ZIP's FHIR sink
 * uses), and a Device per device the exported readings came with (`device.display` of their
 * Observations). Readings are read participant by participant in keyset pages, so memory
 * holds one page whatever the trial's size. With `since`, only readings stored or changed
 * after it (their `synced_at`), and none changed after `transactionTime`: a pipeline that
 * passes the last manifest's `transactionTime` as the next `_since` misses none (decision 0245).
 * Readings without an Observation (no LOINC code here) are counted per metric in an
 * OperationOutcome file (the manifest's `error`).
 * Throws ExportCancelled when `io.progress` answers false (cancelled or taken over).
 */
export async function writeBulkExport(
  plan: BulkPlan,
  io: Pick<ExportIo, 'iterate' | 'progress' | 'pageSize'> & { resourcesPerFile?: number },
  workDir: string,
): Promise<BulkFiles & { resources: number }> {
  const perFile = io.resourcesPerFile ?? BULK_RESOURCES_PER_FILE;
  const wanted = new Set(plan.types);
  const series = new Map<BulkFile['type'], NdjsonSeries>();
  const seriesOf = (type: BulkFile['type']) => {
    let found = series.get(type);
    if (!found) {
      found = new NdjsonSeries(type, workDir, perFile);
      series.set(type, found);
    }
    return found;
  };
  const check = async (fraction: number) => {
    if (!(await io.progress(fraction))) throw new ExportCancelled();
  };
  try {
    if (wanted.has('Group'))
      await seriesOf('Group').write(fhirGroup(plan.trialId, plan.participants));
    if (wanted.has('Patient'))
      await seriesOf('Patient').writeAll(plan.participants.map((entry) => fhirPatient(entry)));
    await check(0.01);

    const observations = fhirObservationBuilder({ pairs: true });
    const devices = new Set<string>();
    if (wanted.has('Observation') || wanted.has('Device')) {
      const count = plan.participants.length;
      const until = plan.transactionTime.getTime();
      for (const [index, participant] of plan.participants.entries()) {
        const query = {
          teamId: plan.teamId,
          participantId: participant.participantId,
          from: EARLIEST_READING,
          to: new Date(until + FUTURE_WINDOW_MS),
          // Stored or changed in (since, transactionTime] (decision 0245).
          synced: { after: plan.since, until: plan.transactionTime },
        };
        for await (const readings of io.iterate(query, { pageSize: io.pageSize })) {
          if (wanted.has('Device'))
            for (const reading of readings) devices.add(readingDevice(reading));
          if (wanted.has('Observation'))
            await seriesOf('Observation').writeAll(observations.page(readings, participant));
          await check(0.01 + (0.97 * index) / Math.max(count, 1));
        }
        if (wanted.has('Observation'))
          await seriesOf('Observation').writeAll(observations.end(participant));
        await check(0.01 + (0.97 * (index + 1)) / Math.max(count, 1));
      }
    }
    for (const display of [...devices].sort()) await seriesOf('Device').write(fhirDevice(display));
    for (const [metricKey, readings] of [...observations.skipped].sort(([a], [b]) =>
      a < b ? -1 : 1,
    ))
      await seriesOf('OperationOutcome').write({
        resourceType: 'OperationOutcome',
        issue: [
          {
            severity: 'warning',
            code: 'not-supported',
            diagnostics: `${readings} readings of the metric ${metricKey} are not in this export: TrialPulse has no FHIR code for it (the Data Export page's CSV has them)`,
          },
        ],
      });

    const output: BulkFile[] = [];
    const error: BulkFile[] = [];
    let resources = 0;
    for (const type of [...BULK_TYPES, 'OperationOutcome'] as const) {
      const files = await series.get(type)?.close();
      for (const file of files ?? []) {
        (type === 'OperationOutcome' ? error : output).push(file);
        if (type !== 'OperationOutcome') resources += file.count;
      }
    }
    series.clear();
    const listing = new TextFile(BULK_FILES_ENTRY, path.join(workDir, BULK_FILES_ENTRY));
    await listing.write(JSON.stringify({ output, error }) + '\n');
    await listing.close();
    await check(0.99);
    return { output, error, resources };
  } finally {
    // Cancelled or failed: close what is open (the caller removes the directory).
    for (const open of series.values()) await open.close().catch(() => undefined);
  }
}

/** The NDJSON files of one resource type: `<Type>-1.ndjson`, `<Type>-2.ndjson`, … of `perFile` lines each. */
class NdjsonSeries {
  private file: TextFile | undefined;
  private readonly done: BulkFile[] = [];
  constructor(
    private readonly type: BulkFile['type'],
    private readonly dir: string,
    private readonly perFile: number,
  ) {}

  async write(resource: object): Promise<void> {
    await this.writeAll([resource]);
  }

  /** Writes the resources in order, one line each, as few writes as the file boundaries allow. */
  async writeAll(resources: readonly object[]): Promise<void> {
    let at = 0;
    while (at < resources.length) {
      if (this.file && this.file.rows >= this.perFile) await this.finishFile();
      if (!this.file) {
        const name = `${this.type}-${this.done.length + 1}.ndjson`;
        this.file = new TextFile(name, path.join(this.dir, name));
      }
      const batch = resources.slice(at, at + (this.perFile - this.file.rows));
      at += batch.length;
      this.file.rows += batch.length;
      await this.file.write(batch.map((resource) => JSON.stringify(resource)).join('\n') + '\n');
    }
  }

  async close(): Promise<BulkFile[]> {
    if (this.file) await this.finishFile();
    return this.done;
  }

  private async finishFile() {
    const file = this.file!;
    this.file = undefined;
    await file.close();
    this.done.push({ type: this.type, name: file.name, count: file.rows });
  }
}
