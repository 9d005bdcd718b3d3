import path from 'node:path';
import { exportBaseName } from '../export-plan';
import { toFhirObservation, type SubjectInfo } from '../export-standards';
import type { ExportSink, SinkContext } from './export-sink';
import { TextFile } from './sink-files';

/**
 * `…-fhir-observations.ndjson`: one FHIR R4 Observation per reading of a metric with a
 * LOINC code, one line each (decision 0046; the mapping is export-standards.ts).
 */
export function fhirSink({ plan, workDir }: SinkContext): ExportSink {
  let file: TextFile;
  return {
    reads: 'pages',
    async open() {
      file = new TextFile(
        `${exportBaseName(plan)}-fhir-observations.ndjson`,
        path.join(workDir, 'fhir.ndjson'),
      );
    },
    async writePage({ participant, readings }) {
      const subject: SubjectInfo = { ...participant, deviceName: plan.device.friendlyName };
      const lines: string[] = [];
      for (const reading of readings) {
        const observation = toFhirObservation(reading, subject);
        if (observation) lines.push(JSON.stringify(observation));
      }
      file.rows += lines.length;
      if (lines.length) await file.write(lines.join('\n') + '\n');
    },
    async close() {
      return { files: [await file.close()] };
    },
  };
}
