/**
 * Benchmark: batch export on PostgreSQL. Stores minute heart-rate readings for 10
 * participants (4 million by default, BENCH_EXPORT_ROWS to change), then in one run:
 * - the export worker (bench/export-worker.ts, its own process) builds the ZIP of CSV of
 *   0.4 M and of all rows at the product's deflate level, and of all rows at level 6;
 *   wall time and peak memory of the process;
 * - right after each, the reference: `COPY (the same rows) TO STDOUT | gzip` through psql,
 *   at the same compression level (like with like: zip level 1 vs gzip -1, 6 vs gzip -6);
 * and prints the speed ratio (reference time / export time; goal ≥ 0.5) and whether the
 * worker's memory stays flat (goal: under 256 MB at both sizes). Asserts nothing.
 * BENCH_EXPORT_LEVEL6=0 leaves out the level-6 run; BENCH_EXPORT_RUNS=n repeats each pair and
 * compares the best times (the machine may be shared).
 *
 * PostgreSQL: BENCH_DATABASE_URL or TEST_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres);
 * a fresh database is created and dropped. Run: `npm run bench`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { Database } from '../apps/server/src/db/client';
import { createTestDatabase } from '../apps/server/src/test/test-database';
import { copyThroughGzip, runExportWorker } from './support/export-runs';
import { createStaffUser } from '../apps/server/src/test/fixtures';
import { EXPORT_ZIP_LEVEL } from '../apps/server/src/modules/export/export-writer';
import { createExportRepository } from '../apps/server/src/modules/export/export.repository';
import { createExportDevice } from '../apps/server/src/modules/export/test-support';
import { createParticipants } from '../apps/server/src/modules/sync/test-support';

const serverUrl =
  process.env.BENCH_DATABASE_URL ??
  process.env.TEST_DATABASE_URL ??
  'postgres://postgres@127.0.0.1:5432/postgres';
const TOTAL_ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 4_000_000);
const PARTICIPANTS = 10;
const WORKER_HEAP_MB = Number(process.env.BENCH_EXPORT_HEAP_MB ?? 128);
const MINUTES_PER_PARTICIPANT = Math.ceil(TOTAL_ROWS / PARTICIPANTS);
const DAY = 24 * 60 * 60 * 1000;
const millions = (rows: number) => `${+(rows / 1e6).toFixed(2)} M`;

process.env.TEST_DATABASE_URL = serverUrl;
let database: Database;
try {
  database = await createTestDatabase();
} catch (error) {
  console.log(`export: skipped, no PostgreSQL at ${serverUrl} (${(error as Error).message})`);
  process.exit(0);
}
const db = database.db;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trialpulse-bench-export-'));
const connectionString = database.connectionString!;

try {
  const { teamId, trialId, participantIds } = await createParticipants(db, PARTICIPANTS);
  const { deviceId } = await createExportDevice(db, teamId);
  const user = await createStaffUser(db, { role: 'Admin', teamId });

  // Minute readings ending yesterday, stored with one INSERT … SELECT per participant.
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
      select ${participantId}, ${teamId}, 'heart_rate', ${first.toISOString()}::timestamptz + m * interval '1 minute', 'Fitbit', -300,
             55 + (m * 7 + ${participantId}) % 60, 'google-health', 'bench-tracker', now()
      from generate_series(0, ${MINUTES_PER_PARTICIPANT - 1}) as m`);
  }
  // Hint bits and the visibility map set now, as on data that has settled: neither the export nor
  // the reference pays the first read after a bulk insert.
  await db.execute(sql`vacuum (analyze) device_readings`);
  const stored = Number(
    (
      (await db.execute(sql`select count(*)::bigint as n from device_readings`)).rows[0] as {
        n: string;
      }
    ).n,
  );
  console.log(
    `export: ${stored.toLocaleString('en')} minute readings of ${PARTICIPANTS} participants stored in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (PostgreSQL, Node ${process.version})`,
  );

  const exports = createExportRepository(db);
  const startDate = first.toISOString().slice(0, 10);
  const endDate = new Date(todayMs - DAY).toISOString().slice(0, 10);
  const smallEnd = new Date(firstMs + Math.ceil(TOTAL_ROWS / 10 / PARTICIPANTS / 1440) * DAY - DAY)
    .toISOString()
    .slice(0, 10);

  async function runWorker(label: string, end: string, level: number) {
    const job = await exports.insertJob({
      teamId,
      trialId,
      createdBy: user.id,
      jobParams: {
        fileName: `bench ${label}`,
        startDate,
        endDate: end,
        participantIds,
        metrics: ['heart_rate'],
        deviceId,
        exportMode: 'separate-tabs',
        format: 'csv',
        extras: [],
      },
    });
    const result = await runExportWorker({
      connectionString,
      jobId: job.id,
      dataDir,
      heapMB: WORKER_HEAP_MB,
      env: { BENCH_EXPORT_ZIP_LEVEL: String(level) },
    });
    console.log(
      `  worker ${label.padEnd(5)} zip level ${level}  ${result.rows.toLocaleString('en').padStart(10)} rows  ${(result.ms / 1000).toFixed(1).padStart(6)} s  ${(result.rows / (result.ms / 1000)).toFixed(0).padStart(7)} rows/s  ZIP ${(result.bytes / 1e6).toFixed(1)} MB  peak RSS ${result.maxRssMB.toFixed(0)} MB (${result.baselineRssMB.toFixed(0)} MB before the export)  peak heap ${result.peakHeapMB.toFixed(0)} MB (heap limit ${WORKER_HEAP_MB} MB)`,
    );
    return { ...result, end, level };
  }

  async function copyGzip(end: string, level: number) {
    const endExclusive = new Date(Date.parse(`${end}T00:00:00Z`) + DAY).toISOString();
    const query = `COPY (select participant_id, metric_key, recorded_at, utc_offset_minutes, end_at, value, value_json, data_source, upstream
      from device_readings where team_id = ${teamId} and participant_id in (${participantIds.join(',')}) and metric_key = 'heart_rate' and brand = 'Fitbit'
      and recorded_at >= '${first.toISOString()}' and recorded_at < '${endExclusive}'
      order by participant_id, metric_key, recorded_at) TO STDOUT WITH (FORMAT csv, HEADER)`;
    const { ms, bytes } = await copyThroughGzip({
      connectionString,
      query,
      level,
      target: path.join(dataDir, 'copy.csv.gz'),
    });
    console.log(
      `  COPY … TO STDOUT | gzip -${level}         ${(ms / 1000).toFixed(1).padStart(6)} s  ${(bytes / 1e6).toFixed(1)} MB`,
    );
    return { ms, bytes };
  }

  console.log(
    `export: ZIP of CSV (separate tabs, one file per participant; product deflate level ${EXPORT_ZIP_LEVEL}) vs COPY … TO STDOUT | gzip of the same rows at the same level, each reference right after its export`,
  );
  // On a shared machine one pair can land in someone else's burst: each pair runs
  // BENCH_EXPORT_RUNS times (export, then its reference) and the best times are compared.
  const RUNS = Math.max(1, Number(process.env.BENCH_EXPORT_RUNS ?? 1));
  type Run = Awaited<ReturnType<typeof runWorker>>;
  type Reference = Awaited<ReturnType<typeof copyGzip>>;
  const pairs: { runs: Run[]; references: Reference[] }[] = [];
  for (const [label, end, level] of [
    [millions(TOTAL_ROWS / 10), smallEnd, EXPORT_ZIP_LEVEL],
    [millions(TOTAL_ROWS), endDate, EXPORT_ZIP_LEVEL],
    // (as number: the product's level is a literal today; the bench must hold if it becomes 6)
    ...(process.env.BENCH_EXPORT_LEVEL6 === '0' || (EXPORT_ZIP_LEVEL as number) === 6
      ? []
      : [[millions(TOTAL_ROWS), endDate, 6] as const]),
  ] as const) {
    const pair = { runs: [] as Run[], references: [] as Reference[] };
    for (let n = 0; n < RUNS; n += 1) {
      pair.runs.push(await runWorker(label, end, level));
      pair.references.push(await copyGzip(end, level));
    }
    pairs.push(pair);
  }
  const seconds = (list: { ms: number }[]) =>
    list.map((entry) => (entry.ms / 1000).toFixed(1)).join(' / ');
  const best = (list: { ms: number }[]) => Math.min(...list.map((entry) => entry.ms));
  for (const { runs, references } of pairs) {
    const run = runs[0]!;
    console.log(
      `  ${run.rows.toLocaleString('en').padStart(10)} rows, level ${run.level}: COPY|gzip -${run.level} ${seconds(references)} s (${(references[0]!.bytes / 1e6).toFixed(1)} MB), export ${seconds(runs)} s (${(run.bytes / 1e6).toFixed(1)} MB) → speed ratio ${(best(references) / best(runs)).toFixed(2)}× (${RUNS > 1 ? 'best times; ' : ''}goal ≥ 0.5×)`,
    );
  }
  const peak = (runs: Run[]) => Math.max(...runs.map((run) => run.maxRssMB));
  const [small, large] = [pairs[0]!.runs, pairs[1]!.runs];
  console.log(
    `  worker peak memory: ${peak(small).toFixed(0)} MB at ${small[0]!.rows.toLocaleString('en')} rows, ${peak(large).toFixed(0)} MB at ${large[0]!.rows.toLocaleString('en')} rows (×${(peak(large) / peak(small)).toFixed(2)} for ×${(large[0]!.rows / small[0]!.rows).toFixed(1)} rows; goal: flat, under 256 MB)`,
  );
} finally {
  await database.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
