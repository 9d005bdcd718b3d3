import path from 'node:path';
import { civilDays, readingDay } from '@trialpulse/shared/civil-days';
import { neutralise } from '../../../lib/csv-safe';
import type { StoredReading } from '../../sync/readings.service';
import { exportBaseName, type ExportParticipantRef } from '../export-plan';
import type { ExportSink, SinkContext } from './export-sink';
import { CsvFile, type Cell } from './sink-files';

type Day = { readings: number; hrMinutes: number; lastHrMinute: number; hours: number };

/**
 * `…-adherence.csv`: per participant and day of the range, readings, heart-rate minutes
 * (distinct minutes with a heart-rate sample) and sensor hours (local clock hours with any
 * intraday sample) (decision 0046). Days are the participant's local civil days, as on the
 * completeness grid (decisions 0051, 0180). Holds one participant's days at a time.
 */
export function adherenceSink({ plan, workDir }: SinkContext): ExportSink {
  let file: CsvFile;
  let days = new Map<string, Day>();

  const add = (reading: StoredReading) => {
    const day = readingDay(reading);
    let entry = days.get(day);
    if (!entry) days.set(day, (entry = { readings: 0, hrMinutes: 0, lastHrMinute: -1, hours: 0 }));
    entry.readings += 1;
    if (reading.metricKey === 'heart_rate') {
      // Readings of a metric arrive in time order, so a new minute is one not seen last.
      const minute = Math.floor(reading.recordedAt.getTime() / 60_000);
      if (minute !== entry.lastHrMinute) {
        entry.hrMinutes += 1;
        entry.lastHrMinute = minute;
      }
    }
    if (reading.utcOffsetMinutes !== null)
      entry.hours |=
        1 <<
        new Date(reading.recordedAt.getTime() + reading.utcOffsetMinutes * 60_000).getUTCHours();
  };

  /** Writes one participant's days over the whole range (days without data: zeros). */
  const flush = async (participant: ExportParticipantRef) => {
    const rows: Cell[][] = [];
    for (const day of civilDays({ start: plan.request.startDate, end: plan.request.endDate })) {
      const entry = days.get(day);
      rows.push([
        participant.participantId,
        neutralise(participant.participantCode),
        day,
        entry?.readings ?? 0,
        entry?.hrMinutes ?? 0,
        entry ? popcount(entry.hours) : 0,
      ]);
    }
    await file.rowsOf(rows);
    days = new Map();
  };

  return {
    reads: 'pages',
    async open() {
      file = new CsvFile(
        `${exportBaseName(plan)}-adherence.csv`,
        path.join(workDir, 'adherence.csv'),
        [
          'participant_id',
          'participant_code',
          'date',
          'readings',
          'heart_rate_minutes',
          'sensor_hours',
        ],
      );
    },
    async writePage({ participant, readings, end }) {
      for (const reading of readings) add(reading);
      if (end) await flush(participant);
    },
    async close() {
      return { files: [await file.close()] };
    },
  };
}

function popcount(mask: number): number {
  let n = 0;
  for (let bits = mask >>> 0; bits; bits &= bits - 1) n += 1;
  return n;
}
