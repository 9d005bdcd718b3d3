/**
 * An Open mHealth export of many readings in a process whose heap is capped (the memory
 * test, decision 0133): the writer with readings made page by page in memory, so only the
 * writer's own memory counts. Prints the files of the ZIP as one JSON line and exits; a
 * writer that held its output would run out of heap and exit non-zero. The data format is
 * the last argument (CSV, whose data is not measured here, or Parquet: decision 0250).
 *
 * Args: <work dir> <zip path> <readings> [csv|parquet]
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { StoredReading } from '../sync/readings.service';
import { writeExport } from './export-writer';

const [workDir, zipPath, countText, format = 'csv'] = process.argv.slice(2);
const count = Number(countText);
const from = Date.parse('2026-01-01T00:00:00Z');
fs.mkdirSync(workDir!, { recursive: true });

const result = await writeExport(
  {
    jobId: 1,
    teamId: 1,
    request: {
      fileName: 'Memory',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      participantIds: [1],
      metrics: ['heart_rate'],
      exportMode: 'single-tab',
      format: format === 'parquet' ? 'parquet' : 'csv',
      extras: ['openmhealth'],
      trialId: 1,
      deviceId: 1,
    },
    device: { id: 1, friendlyName: 'Tracker', brand: 'Fitbit', deviceType: 'TRACKER' },
    participants: [{ participantId: 1, participantCode: 'P-1' }],
    metrics: [
      {
        metricKey: 'heart_rate',
        metricName: 'Heart Rate',
        units: 'bpm',
        category: 'heart',
        description: null,
      },
    ],
    softwareVersion: 'memory-test',
    exportedAt: new Date(from),
  },
  {
    dayOffsets: async () => [],
    // A year of minute heart rate, made a page at a time (never all at once).
    async *iterate(_query, options) {
      const size = options.pageSize ?? 5_000;
      for (let at = 0; at < count; at += size) {
        const page: StoredReading[] = [];
        for (let n = at; n < Math.min(at + size, count); n += 1)
          page.push({
            participantId: 1,
            teamId: 1,
            metricKey: 'heart_rate',
            recordedAt: new Date(from + n * 60_000),
            brand: 'Fitbit',
            endAt: null,
            utcOffsetMinutes: 0,
            value: 60 + (n % 40),
            valueJson: null,
            upstream: 'google-health',
            dataSource: 'tracker',
            syncRunId: null,
            syncedAt: new Date(from),
          });
        yield page;
      }
    },
    // The CSV data is not what this measures: an empty table.
    csv: (_query, _labels, options) => ({
      stream: Readable.from(options.header ? ['participant_id\n'] : []),
      rows: () => 0,
    }),
    progress: async () => true,
  },
  path.join(workDir!),
  zipPath!,
);
process.stdout.write(
  `${JSON.stringify({ files: result.files, heapLimit: process.env.NODE_OPTIONS ?? '' })}\n`,
);
