/**
 * Benchmark of the device-data sync (issue 15), printed on PGlite and on PostgreSQL
 * (TEST_DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres when it answers):
 * 1. Ingest: rows/s of the sync's write path (ReadingsService.store: dedupe, partitions,
 *    json_to_recordset batches + INSERT … ON CONFLICT) against COPY of the same rows into the
 *    same table of the same database, and their ratio (goal ≥ 0.5).
 * 2. Provider calls of a one-year Google Health backfill of one participant (every stored
 *    Fitbit metric except intraday heart rate) against the minimum the range limits and page
 *    sizes allow for the same data. Prints figures; asserts nothing. Run: `npm run bench`.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../apps/server/src/db/client';
import { createTestDatabase } from '../apps/server/src/test/test-database';
import { buildSyncService } from '../apps/server/src/modules/sync/sync.composition';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  readingsServiceFor,
  startSyncSimulators,
} from '../apps/server/src/modules/sync/test-support';
import type { ReadingInput } from '../apps/server/src/modules/sync/readings.service';

const ROWS = Number(process.env.BENCH_SYNC_ROWS ?? 200_000);
const DAY = 86_400_000;

async function postgresUrl(): Promise<string | null> {
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return url;
  } catch {
    return null;
  }
}

function heartRate(participantId: number, teamId: number, count: number): ReadingInput[] {
  const start = Date.UTC(2026, 9, 1);
  return Array.from({ length: count }, (_, i) => ({
    participantId,
    teamId,
    brand: 'Fitbit' as const,
    metricKey: 'heart_rate',
    recordedAt: new Date(start + i * 5000),
    utcOffsetMinutes: -300,
    value: 55 + (i % 60),
    upstream: 'google-health' as const,
    dataSource: 'Charge 6',
  }));
}

const csvOf = (rows: ReadingInput[]) =>
  rows
    .map(
      (r) =>
        `${r.participantId},${r.teamId},${r.metricKey},${r.recordedAt.toISOString()},${r.brand},${r.utcOffsetMinutes},${r.value},${r.upstream},${r.dataSource}`,
    )
    .join('\n') + '\n';
const COPY_SQL = `COPY device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream, data_source) FROM STDIN WITH (FORMAT csv)`;

async function copyRows(database: Database, rows: ReadingInput[]): Promise<void> {
  const csv = csvOf(rows);
  if (database.kind === 'pglite') {
    const client = (
      database.db as unknown as {
        $client: {
          query(sql: string, params: unknown[], options: { blob: Blob }): Promise<unknown>;
        };
      }
    ).$client;
    await client.query(COPY_SQL.replace('FROM STDIN', "FROM '/dev/blob'"), [], {
      blob: new Blob([csv]),
    });
    return;
  }
  const client = new pg.Client({ connectionString: database.connectionString });
  await client.connect();
  try {
    await pipeline(Readable.from([csv]), client.query(copyFrom(COPY_SQL)));
  } finally {
    await client.end();
  }
}

async function ingest(database: Database, label: string) {
  const { teamId, participantIds } = await createParticipants(database.db, 2);
  const readings = readingsServiceFor(database.db);
  const viaStore = heartRate(participantIds[0]!, teamId, ROWS);
  const viaCopy = heartRate(participantIds[1]!, teamId, ROWS);
  // Same months for both: the partitions exist before either is timed.
  await readings.store(heartRate(participantIds[0]!, teamId, 1));
  let started = performance.now();
  const counts = await readings.store(viaStore);
  const storeSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  await copyRows(database, viaCopy);
  const copySeconds = (performance.now() - started) / 1000;
  const storeRate = counts.inserted / storeSeconds;
  const copyRate = ROWS / copySeconds;
  console.log(
    `${label.padEnd(10)} ingest ${ROWS} heart-rate rows: write path ${storeRate.toFixed(0)} rows/s, COPY ${copyRate.toFixed(0)} rows/s, ratio ${(storeRate / copyRate).toFixed(2)} (goal ≥ 0.5)`,
  );
  started = performance.now();
  const again = await readings.store(viaStore);
  console.log(
    `${label.padEnd(10)} re-sync of the same ${ROWS} rows: ${(ROWS / ((performance.now() - started) / 1000)).toFixed(0)} rows/s, inserted ${again.inserted}, updated ${again.updated}`,
  );
}

async function backfillCalls(database: Database, label: string) {
  const sims = await startSyncSimulators();
  try {
    const { teamId, participantIds } = await createParticipants(database.db, 1);
    const participantId = participantIds[0]!;
    await enrolledOn(database.db, participantId, new Date(sims.clock.nowMs() - 400 * DAY));
    const metrics = [
      'steps',
      'distance',
      'floors',
      'calories',
      'minutes_lightly_active',
      'minutes_fairly_active',
      'minutes_very_active',
      'resting_heart_rate',
      'spo2',
      'breathing_rate',
      'vo2_max',
      'sleep_duration',
      'sleep_stages',
      'weight',
      'body_fat',
    ];
    const connectionId = await linkForSync(database.db, sims, {
      teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ava-thompson',
      metrics,
    });
    const service = buildSyncService(database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
      runSeconds: 3600,
    });
    const started = performance.now();
    const result = await service.syncConnection(connectionId, {
      kind: 'backfill',
      owner: randomUUID(),
    });
    const seconds = (performance.now() - started) / 1000;
    const days = 366;
    const stats = await readingsServiceFor(database.db).stats(teamId, participantId);
    const rowsOf = (key: string) => stats.find((row) => row.metricKey === key)?.rows ?? 0;
    // The fewest calls the limits allow: rollups 90 days (total calories 14) per call, daily lists
    // one page of 10,000, sleep pages of 25 sessions, weight and body fat pages of 10,000.
    const minimum =
      4 * Math.ceil(days / 90) +
      Math.ceil(days / 14) +
      4 +
      Math.max(1, Math.ceil(rowsOf('sleep_duration') / 25)) +
      Math.max(1, Math.ceil(rowsOf('weight') / 10_000)) +
      Math.max(1, Math.ceil(rowsOf('body_fat') / 10_000));
    console.log(
      `${label.padEnd(10)} one-year Google Health backfill (${metrics.length} metrics, no intraday heart rate): ${result.providerCalls} provider calls vs minimum ${minimum} (ratio ${(result.providerCalls / minimum).toFixed(2)}), ${result.inserted} rows in ${seconds.toFixed(1)} s, outcome ${result.outcome}`,
    );
  } finally {
    await sims.close();
  }
}

console.log(`sync: Node ${process.version}`);
const pglite = await createTestDatabase();
await ingest(pglite, 'PGlite');
await backfillCalls(pglite, 'PGlite');
await pglite.close();

const url = await postgresUrl();
if (url) {
  process.env.TEST_DATABASE_URL = url;
  const postgres = await createTestDatabase();
  await ingest(postgres, 'PostgreSQL');
  await backfillCalls(postgres, 'PostgreSQL');
  await postgres.close();
} else {
  console.log(
    'PostgreSQL   not reachable (set TEST_DATABASE_URL): PostgreSQL figures not measured',
  );
}
