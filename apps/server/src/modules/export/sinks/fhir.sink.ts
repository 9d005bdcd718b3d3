import path from 'node:path';
import { exportBaseName } from '../export-plan';
import {
  fhirGroup,
  fhirObservationBuilder,
  fhirPatient,
  type SubjectInfo,
} from '../export-standards';
import type { ExportSink, SinkContext } from './export-sink';
import { TextFile } from './sink-files';

/**
 * `…-fhir-observations.ndjson`: one FHIR R4 Observation per reading of a metric with a
 * LOINC code, one line each (decision 0046; the mapping is export-standards.ts), built by
 * `fhirObservationBuilder` as Bulk Data's are: a systolic and a diastolic reading of one
 * instant are one blood-pressure panel (85354-9, the R4 `bp` profile; decision 0183).
 * Beside it, `…-fhir-patients.ndjson` (a Patient per participant: the identifier, no personal
 * data) and `…-fhir-groups.ndjson` (the trial as a Group of them) that the Observations'
 * subjects refer to.
 */
export function fhirSink({ plan, workDir }: SinkContext): ExportSink {
  let file: TextFile;
  let patients: TextFile;
  const observations = fhirObservationBuilder({
    pairs: plan.request.metrics.includes('systolic') && plan.request.metrics.includes('diastolic'),
  });
  return {
    reads: 'pages',
    async open() {
      file = new TextFile(
        `${exportBaseName(plan)}-fhir-observations.ndjson`,
        path.join(workDir, 'fhir.ndjson'),
      );
      patients = new TextFile(
        `${exportBaseName(plan)}-fhir-patients.ndjson`,
        path.join(workDir, 'fhir-patients.ndjson'),
      );
    },
    async writePage({ participant, readings, end }) {
      const subject: SubjectInfo = participant;
      const lines = observations.page(readings, subject).map((entry) => JSON.stringify(entry));
      if (end) {
        for (const entry of observations.end(subject)) lines.push(JSON.stringify(entry));
        patients.rows += 1;
        await patients.write(JSON.stringify(fhirPatient(participant)) + '\n');
      }
      file.rows += lines.length;
      if (lines.length) await file.write(lines.join('\n') + '\n');
    },
    async close() {
      const groups = new TextFile(
        `${exportBaseName(plan)}-fhir-groups.ndjson`,
        path.join(workDir, 'fhir-groups.ndjson'),
      );
      groups.rows = 1;
      await groups.write(JSON.stringify(fhirGroup(plan.request.trialId, plan.participants)) + '\n');
      return { files: [await file.close(), await patients.close(), await groups.close()] };
    },
  };
}
