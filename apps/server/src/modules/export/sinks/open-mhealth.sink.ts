import path from 'node:path';
import { shiftCivilDay } from '@trialpulse/shared/civil-days';
import type { StoredReading } from '../../sync/readings.service';
import { exportBaseName } from '../export-plan';
import {
  dayOffsetLookup,
  openMHealthBloodPressure,
  openMHealthSerializer,
} from '../export-standards';
import type { ExportSink, SinkContext } from './export-sink';
import { TextFile } from './sink-files';

/** Characters of Open mHealth text handed to its file at a time. */
const OMH_WRITE_CHARS = 1 << 20;

/**
 * `…-openmhealth.json`: an array of Open mHealth data points (decision 0046); a daily value
 * covers its local day, written with the participant's offsets (decision 0182). Points are
 * serialised straight to text, the parts a participant's points share once per participant,
 * and written about a megabyte at a time (decision 0133).
 */
export function openMHealthSink({ plan, io, workDir }: SinkContext): ExportSink {
  const exportedAt = plan.exportedAt.toISOString();
  let file: TextFile;
  let first = true;
  let serialiser:
    { participantId: number; point: (reading: StoredReading) => string | null } | undefined;
  // Blood pressure is one point of a systolic and a diastolic reading of one instant
  // (decision 0183); a participant's diastolic readings come first and wait for theirs.
  let diastolic = new Map<number, StoredReading>();
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
        diastolic = new Map();
        return;
      }
      if (serialiser?.participantId !== participant.participantId) {
        const subject = participant;
        // A daily value is its local day with the offsets it began and ended with (decision 0182).
        const offsets = await io.dayOffsets(plan.teamId, participant.participantId, {
          start: shiftCivilDay(plan.request.startDate, -7),
          end: shiftCivilDay(plan.request.endDate, 7),
        });
        serialiser = {
          participantId: participant.participantId,
          point: openMHealthSerializer(subject, exportedAt, dayOffsetLookup(offsets)),
        };
      }
      let text = '';
      const subject = participant;
      for (const reading of readings) {
        let point: string | null;
        if (reading.metricKey === 'diastolic' && reading.value !== null) {
          diastolic.set(reading.recordedAt.getTime(), reading);
          continue;
        }
        const partner =
          reading.metricKey === 'systolic' && reading.value !== null
            ? diastolic.get(reading.recordedAt.getTime())
            : undefined;
        if (partner) point = openMHealthBloodPressure(reading, partner, subject, exportedAt);
        else point = serialiser.point(reading);
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
