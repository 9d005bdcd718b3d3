import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DuckDBInstance } from '@duckdb/node-api';
import JSZip from 'jszip';
import { afterAll, describe, expect, it } from 'vitest';
import type { StoredReading } from '../../sync/readings.service';
import type { ExportPlan } from '../export-plan';
import { writeExport } from '../export-writer';
import { PARQUET_ROW_GROUP_ROWS } from './parquet.sink';

const FROM = Date.parse('2026-01-01T00:00:00Z');
const METRICS = ['heart_rate', 'steps', 'spo2', 'calories', 'distance'];
/**
 * Rows per participant and metric: heart rate passes a row group's worth by the second
 * participant; the four others never reach one (4 × 6,000 in all), but all together pass
 * the cap held across metrics by the third.
 */
const COUNTS: Record<string, number> = {
  heart_rate: 20_000,
  steps: 6_000,
  spo2: 6_000,
  calories: 6_000,
  distance: 6_000,
};
const PARTICIPANTS = [1, 2, 3, 4].map((id) => ({ participantId: id, participantCode: `P-${id}` }));

describe('Parquet data in row groups', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parquet-sink-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('writes each metric in row groups no larger than the limit, and flushes early past the cap across metrics, every row in order', async () => {
    const small = METRICS.filter((metricKey) => metricKey !== 'heart_rate');
    for (const metricKey of small)
      expect(PARTICIPANTS.length * COUNTS[metricKey]!).toBeLessThan(PARQUET_ROW_GROUP_ROWS);
    expect(PARTICIPANTS.length * COUNTS.heart_rate!).toBeGreaterThan(PARQUET_ROW_GROUP_ROWS);
    const zipPath = path.join(dir, 'export.zip');
    fs.mkdirSync(path.join(dir, 'work'));
    await writeExport(plan(), io(), path.join(dir, 'work'), zipPath);
    const zip = await JSZip.loadAsync(fs.readFileSync(zipPath));

    const duck = await DuckDBInstance.create(':memory:');
    const connection = await duck.connect();
    try {
      for (const metricKey of METRICS) {
        const file = path.join(dir, `${metricKey}.parquet`);
        fs.writeFileSync(
          file,
          await zip.file(`TrialPulse-Groups-${metricKey}-Data.parquet`)!.async('nodebuffer'),
        );
        const groups = (
          await connection.runAndReadAll(
            `select row_group_id, max(row_group_num_rows)::int as rows from parquet_metadata('${file}') group by row_group_id order by row_group_id`,
          )
        ).getRowObjectsJS() as { rows: number }[];
        const sizes = groups.map((group) => group.rows);
        expect(Math.max(...sizes), metricKey).toBeLessThanOrEqual(PARQUET_ROW_GROUP_ROWS);
        expect(
          sizes.reduce((sum, rows) => sum + rows, 0),
          metricKey,
        ).toBe(PARTICIPANTS.length * COUNTS[metricKey]!);
        // Every row, in the plan's participant order and by time within each, every cell typed
        // as written: instants, the wall clock (a row without an offset: midnight of its
        // date), the offset, the session's end, the value and the JSON, nulls where none.
        const mismatches = (
          await connection.runAndReadAll(
            `with r as (select *, epoch_ms(recorded_at_utc) as t, (file_row_number % ${COUNTS[metricKey]})::int as i, file_row_number as n from read_parquet('${file}', file_row_number = true))
             select count(*)::int as bad from r
             where participant_id <> floor(n / ${COUNTS[metricKey]})::int + 1
                or t <> ${FROM} + i * 60000
                or value is distinct from (case when i % 11 = 0 then null else i end)
                or utc_offset_minutes is distinct from (case when i % 3 = 0 then null else -300 end)
                or epoch_ms(local_time) <> (case when i % 3 = 0 then t - t % 86400000 else t - 300 * 60000 end)
                or epoch_ms(end_at_utc) is distinct from (case when i % 5 = 0 then t + 3600000 end)
                or value_json is distinct from (case when i % 7 = 0 then '{"n":' || i || '}' end)`,
          )
        ).getRowObjectsJS() as { bad: number }[];
        expect(mismatches, metricKey).toEqual([{ bad: 0 }]);
        if (metricKey === 'heart_rate') expect(sizes[0]).toBe(PARQUET_ROW_GROUP_ROWS);
        // Fewer rows than a group: more than one group only if written early for the cap.
        else expect(sizes.length, metricKey).toBeGreaterThan(1);
      }
    } finally {
      connection.closeSync();
      duck.closeSync();
    }
  });
});

function plan(): ExportPlan {
  return {
    jobId: 1,
    teamId: 1,
    request: {
      fileName: 'Groups',
      startDate: '2026-01-01',
      endDate: '2026-12-31',
      participantIds: PARTICIPANTS.map((p) => p.participantId),
      metrics: METRICS,
      exportMode: 'separate-tabs',
      format: 'parquet',
      extras: [],
      trialId: 1,
      deviceId: 1,
    },
    device: { id: 1, friendlyName: 'Tracker', brand: 'Fitbit', deviceType: 'TRACKER' },
    participants: PARTICIPANTS,
    metrics: METRICS.map((metricKey) => ({
      metricKey,
      metricName: metricKey,
      units: null,
      category: null,
      description: null,
    })),
    softwareVersion: 'test',
    exportedAt: new Date(FROM),
  };
}

/** Pages of 5,000 readings per participant, ordered by metric then time as the database's are. */
function io() {
  return {
    dayOffsets: async () => [],
    async *iterate(query: { participantId: number }) {
      const ordered = [...METRICS].sort();
      let page: StoredReading[] = [];
      for (const metricKey of ordered)
        for (let n = 0; n < COUNTS[metricKey]!; n += 1) {
          page.push({
            participantId: query.participantId,
            teamId: 1,
            metricKey,
            recordedAt: new Date(FROM + n * 60_000),
            brand: 'Fitbit',
            // Sessions, daily-style rows without an offset, gaps in the value, JSON parts.
            endAt: n % 5 === 0 ? new Date(FROM + n * 60_000 + 3_600_000) : null,
            utcOffsetMinutes: n % 3 === 0 ? null : -300,
            value: n % 11 === 0 ? null : n,
            valueJson: n % 7 === 0 ? { n } : null,
            upstream: 'google-health',
            dataSource: 'tracker',
            syncRunId: null,
            syncedAt: new Date(FROM),
          });
          if (page.length === 5_000) {
            yield page;
            page = [];
          }
        }
      if (page.length > 0) yield page;
    },
    csv: () => ({ stream: Readable.from([]), rows: () => 0 }),
    progress: async () => true,
  };
}
