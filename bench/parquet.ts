/**
 * Benchmark: the Parquet data format of the export (issue 31, decision 0250) on PostgreSQL.
 * Stores minute heart-rate readings for 10 participants (1 million by default,
 * BENCH_PARQUET_ROWS to change; values that wander like a pulse, not a short cycle), then in
 * one run, each in the export worker's own process (bench/export-worker.ts, heap capped at
 * 128 MB):
 * - the export as Parquet (one zstd file per metric, in a stored ZIP);
 * - the export as CSV (the product's ZIP of CSV at deflate level 1, separate tabs);
 * - the reference right after: `COPY (the same rows) TO STDOUT | gzip -1` through psql, and
 *   the same COPY through `gzip -6`;
 * and prints bytes per reading of each file (Parquet next to CSV + gzip), each export's
 * time against `COPY … | gzip -1` (reference time / export time; the CSV export's goal is
 * ≥ 0.5×, decision 0049), and the workers' peak memory. Asserts nothing; exits 1 with
 * "NOT measured" if the Parquet export did not write every reading.
 *
 * PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * a fresh database is created and dropped. Run: `npm run bench` (or
 * `node --import tsx bench/parquet.ts`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { ExportFormat } from '@trialpulse/shared';
import type { Database } from '../apps/server/src/db/client';
import { createTestDatabase } from '../apps/server/src/test/test-database';
import { copyThroughGzip, runExportWorker } from './support/export-runs';
import { createStaffUser } from '../apps/server/src/test/fixtures';
import { createExportRepository } from '../apps/server/src/modules/export/export.repository';
import { createExportDevice } from '../apps/server/src/modules/export/test-support';
import { rebuildReadingDays } from '../apps/server/src/modules/sync/daily-summary';
import { createParticipants } from '../apps/server/src/modules/sync/test-support';

const serverUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';
const TOTAL_ROWS = Number(process.env.BENCH_PARQUET_ROWS ?? 1_000_000);
const PARTICIPANTS = 10;
const WORKER_HEAP_MB = 128;
const MINUTES_PER_PARTICIPANT = Math.ceil(TOTAL_ROWS / PARTICIPANTS);
const DAY = 24 * 60 * 60 * 1000;

process.env.TEST_DATABASE_URL = serverUrl;
let database: Database;
try {
  database = await createTestDatabase();
} catch (error) {
  console.log(`parquet: skipped, no PostgreSQL at ${serverUrl} (${(error as Error).message})`);
  process.exit(0);
}
const db = database.db;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-bench-parquet-'));
const connectionString = database.connectionString!;
let failed = false;

try {
  const { teamId, trialId, participantIds } = await createParticipants(db, PARTICIPANTS);
  const { deviceId } = await createExportDevice(db, teamId);
  const user = await createStaffUser(db, { role: 'Admin', teamId });

  // Minute readings ending yesterday; the pulse drifts slowly with noise (hashint4: the same
  // values every run), as a worn tracker's does, rather than a short cycle a codec learns.
  // They start at local midnight (UTC−5): every one is on a local day of the request, so the
  // export and the reference's COPY hold the same readings.
  const todayMs = Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00Z`);
  const firstMs = todayMs - Math.ceil(MINUTES_PER_PARTICIPANT / 1440) * DAY;
  const first = new Date(firstMs);
  const seedStarted = performance.now();
  await db.execute(
    sql`select device_readings_ensure_partitions(${first.toISOString()}::timestamptz, ${new Date(todayMs).toISOString()}::timestamptz)`,
  );
  for (const participantId of participantIds) {
    await db.execute(sql`
      insert into device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream, data_source, synced_at)
      select ${participantId}, ${teamId}, 'heart_rate', ${first.toISOString()}::timestamptz + (300 + m) * interval '1 minute', 'Fitbit', -300,
             round(70 + 15 * sin(m / 97.0 + ${participantId}) + abs(hashint4(m * 31 + ${participantId})) % 7), 'google-health', 'bench-tracker', now()
      from generate_series(0, ${MINUTES_PER_PARTICIPANT - 1}) as m`);
  }
  // Written around the write path: the day summary (which a read of local days narrows its
  // instants by) is rebuilt from them, as the write path would have kept it.
  await rebuildReadingDays(db);
  await db.execute(sql`vacuum (analyze) device_readings`);
  const stored = Number(
    (
      (await db.execute(sql`select count(*)::bigint as n from device_readings`)).rows[0] as {
        n: string;
      }
    ).n,
  );
  console.log(
    `parquet: ${stored.toLocaleString('en')} minute readings of ${PARTICIPANTS} participants stored in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (PostgreSQL, Node ${process.version})`,
  );

  const exports = createExportRepository(db);
  const startDate = first.toISOString().slice(0, 10);
  const endDate = new Date(todayMs - DAY).toISOString().slice(0, 10);

  async function runWorker(format: ExportFormat) {
    const job = await exports.insertJob({
      teamId,
      trialId,
      createdBy: user.id,
      jobParams: {
        fileName: `bench ${format}`,
        startDate,
        endDate,
        participantIds,
        metrics: ['heart_rate'],
        deviceId,
        exportMode: 'separate-tabs',
        format,
        extras: [],
      },
    });
    const result = await runExportWorker({
      connectionString,
      jobId: job.id,
      dataDir,
      heapMB: WORKER_HEAP_MB,
    });
    return result;
  }

  async function copyGzip(level: number) {
    const query = `COPY (select participant_id, metric_key, recorded_at, utc_offset_minutes, end_at, value, value_json, data_source, upstream
      from device_readings where team_id = ${teamId} and participant_id in (${participantIds.join(',')}) and metric_key = 'heart_rate' and brand = 'Fitbit'
      order by participant_id, metric_key, recorded_at) TO STDOUT WITH (FORMAT csv, HEADER)`;
    return copyThroughGzip({
      connectionString,
      query,
      level,
      target: path.join(dataDir, 'copy.csv.gz'),
    });
  }

  const parquet = await runWorker('parquet');
  const reference = await copyGzip(1);
  const csv = await runWorker('csv');
  const reference6 = await copyGzip(6);
  if (parquet.rows !== stored || csv.rows !== stored) {
    console.log(
      `parquet: NOT measured: the exports wrote ${parquet.rows} (Parquet) and ${csv.rows} (CSV) of ${stored} readings`,
    );
    failed = true;
  } else {
    const perReading = (bytes: number) => (bytes / stored).toFixed(2).padStart(6);
    const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(6);
    console.log('parquet: bytes per reading and time, the same readings in one run');
    console.log(
      `  Parquet export (zstd, stored ZIP)         ${perReading(parquet.bytes)} B/reading  ${seconds(parquet.ms)} s  peak RSS ${parquet.maxRssMB.toFixed(0)} MB`,
    );
    console.log(
      `  CSV export (ZIP, deflate level 1)         ${perReading(csv.bytes)} B/reading  ${seconds(csv.ms)} s  peak RSS ${csv.maxRssMB.toFixed(0)} MB`,
    );
    console.log(
      `  COPY … TO STDOUT | gzip -1 (fewer columns) ${perReading(reference.bytes)} B/reading  ${seconds(reference.ms)} s`,
    );
    console.log(
      `  COPY … TO STDOUT | gzip -6 (fewer columns) ${perReading(reference6.bytes)} B/reading  ${seconds(reference6.ms)} s`,
    );
    console.log(
      `  Parquet: ${(reference.bytes / parquet.bytes).toFixed(1)}× smaller than COPY | gzip -1, ${(csv.bytes / parquet.bytes).toFixed(1)}× smaller than the CSV export; speed ratio vs COPY | gzip -1: Parquet ${(reference.ms / parquet.ms).toFixed(2)}×, CSV ${(reference.ms / csv.ms).toFixed(2)}× (CSV's goal ≥ 0.5×)`,
    );
  }
} finally {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
