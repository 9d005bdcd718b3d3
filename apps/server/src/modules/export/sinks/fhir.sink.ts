import path from 'node:path';
import { exportBaseName } from '../export-plan';
import type { StoredReading } from '../../sync/readings.service';
import {
  fhirGroup,
  fhirPatient,
  toFhirBloodPressure,
  toFhirObservation,
  type SubjectInfo,
} from '../export-standards';
import type { ExportSink, SinkContext } from './export-sink';
import { TextFile } from './sink-files';

/**
 * `…-fhir-observations.ndjson`: one FHIR R4 Observation per reading of a metric with a
 * LOINC code, one line each (decision 0046; the mapping is export-standards.ts). A systolic
 * and a diastolic reading of one instant are one blood-pressure panel (85354-9, the R4 `bp`
 * profile; decision 0183): readings come by metric, so a participant's diastolic readings
 * wait for their systolic ones; one without its partner is written alone at the end.
 * Beside it, `…-fhir-patients.ndjson` (a Patient per participant: the identifier, no personal
 * data) and `…-fhir-groups.ndjson` (the trial as a Group of them) that the Observations'
 * subjects refer to.
 */
export function fhirSink({ plan, workDir }: SinkContext): ExportSink {
  let file: TextFile;
  let patients: TextFile;
  const pairs =
    plan.request.metrics.includes('systolic') && plan.request.metrics.includes('diastolic');
  let diastolic = new Map<number, StoredReading>();
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
      const lines: string[] = [];
      for (const reading of readings) {
        if (pairs && reading.metricKey === 'diastolic' && reading.value !== null) {
          diastolic.set(reading.recordedAt.getTime(), reading);
          continue;
        }
        const partner =
          pairs && reading.metricKey === 'systolic' && reading.value !== null
            ? diastolic.get(reading.recordedAt.getTime())
            : undefined;
        if (partner) {
          diastolic.delete(reading.recordedAt.getTime());
          lines.push(JSON.stringify(toFhirBloodPressure(reading, partner, subject)));
          continue;
        }
        const observation = toFhirObservation(reading, subject);
        if (observation) lines.push(JSON.stringify(observation));
      }
      if (end) {
        for (const reading of diastolic.values()) {
          const observation = toFhirObservation(reading, subject);
          if (observation) lines.push(JSON.stringify(observation));
        }
        diastolic = new Map();
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
