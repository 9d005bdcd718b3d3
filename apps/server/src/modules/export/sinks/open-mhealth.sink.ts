import path from 'node:path';
import type { StoredReading } from '../../sync/readings.service';
import { exportBaseName } from '../export-plan';
import { openMHealthSerializer } from '../export-standards';
import type { ExportSink, SinkContext } from './export-sink';
import { TextFile } from './sink-files';

/** Characters of Open mHealth text handed to its file at a time. */
const OMH_WRITE_CHARS = 1 << 20;

/**
 * `…-openmhealth.json`: an array of Open mHealth data points (decision 0046). Points are
 * serialised straight to text, the parts a participant's points share once per participant,
 * and written about a megabyte at a time (decision 0133).
 */
export function openMHealthSink({ plan, workDir }: SinkContext): ExportSink {
  const exportedAt = plan.exportedAt.toISOString();
  let file: TextFile;
  let first = true;
  let serialiser:
    { participantId: number; point: (reading: StoredReading) => string | null } | undefined;
  return {
    reads: 'pages',
    async open() {
      file = new TextFile(
        `${exportBaseName(plan)}-openmhealth.json`,
        path.join(workDir, 'omh.json'),
      );
      await file.write('[');
    },
    async writePage({ participant, readings, end }) {
      if (end) {
        serialiser = undefined;
        return;
      }
      if (serialiser?.participantId !== participant.participantId) {
        const subject = { ...participant, deviceName: plan.device.friendlyName };
        serialiser = {
          participantId: participant.participantId,
          point: openMHealthSerializer(subject, exportedAt),
        };
      }
      let text = '';
      for (const reading of readings) {
        const point = serialiser.point(reading);
        if (point === null) continue;
        text += (first ? '\n' : ',\n') + point;
        first = false;
        file.rows += 1;
        if (text.length >= OMH_WRITE_CHARS) {
          await file.write(text);
          text = '';
        }
      }
      await file.write(text);
    },
    async close() {
      await file.write(first ? ']\n' : '\n]\n');
      return { files: [await file.close()] };
    },
  };
}
