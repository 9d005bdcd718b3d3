/**
 * CGM readings stored as rows against day chunks (issue 29, decision 0270), on PostgreSQL
 * (TEST_DATABASE_URL, else DATABASE_URL, else the local server; PGlite without either is
 * not measured: its sizes are not PostgreSQL's). Two databases of its own in one run, the
 * same readings in each, both through the product's write path (ReadingsService.store):
 * - rows: as versions before decision 0270 stored them (without a sync run, so every
 *   reading is a row of `device_readings`; the sync run is added afterwards);
 * - chunks: as a sync stores them now (one chunk per participant × metric × UTC day).
 * The readings: 20 participants × 30 days of Dexcom egv every 5 minutes with its JSON
 * (trend, status, generation, display device) and a trend rate for 9 in 10, as the Dexcom
 * converter gives them. Prints bytes per stored reading (every readings table, indexes,
 * TOAST and the day summary, after VACUUM) and the store's time for each, with their ratio.
 * Figures, never assertions. Run: `node --import tsx bench/cgm-storage.ts`.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import type { Database } from '../apps/server/src/db/client';
import type { ReadingInput } from '../apps/server/src/modules/sync/readings.service';
import {
  createParticipants,
  readingsServiceFor,
} from '../apps/server/src/modules/sync/test-support';
import { createTestDatabase } from '../apps/server/src/test/test-database';

const PARTICIPANTS = 20;
const DAYS = 30;
const START = Date.parse('2026-10-01T00:00:00Z');
const NOW = new Date(START + (DAYS + 1) * 86_400_000);
const TRENDS = ['flat', 'fortyFiveUp', 'singleUp', 'fortyFiveDown', 'singleDown'];

process.env.TEST_DATABASE_URL ??=
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

function readingsOf(teamId: number, participantId: number): ReadingInput[] {
  const readings: ReadingInput[] = [];
  for (let index = 0; index < DAYS * 288; index += 1) {
    const base = {
      participantId,
      teamId,
      brand: 'Dexcom' as const,
      recordedAt: new Date(START + index * 300_000 + (participantId % 60) * 1000),
      utcOffsetMinutes: -300,
      upstream: 'dexcom' as const,
      dataSource: 'G7',
    };
    const glucose = Math.round(120 + 50 * Math.sin(index / 40) + ((index * 7919) % 17));
    readings.push({
      ...base,
      metricKey: 'egv',
      value: index % 500 === 3 ? null : glucose,
      valueJson: {
        trend: TRENDS[Math.floor(index / 7) % TRENDS.length],
        status: index % 500 === 3 ? 'high' : null,
        generation: 'g7',
        displayDevice: 'iOS',
      },
    });
    if (index % 10 !== 0)
      readings.push({ ...base, metricKey: 'egv_trend_rate', value: ((index % 13) - 6) / 4 });
  }
  return readings;
}

async function measure(kind: 'rows' | 'chunks') {
  const database: Database = await createTestDatabase();
  try {
    const { teamId, participantIds } = await createParticipants(database.db, PARTICIPANTS);
    const readings = readingsServiceFor(database.db, () => NOW);
    let stored = 0;
    const started = performance.now();
    for (const participantId of participantIds) {
      const inputs = readingsOf(teamId, participantId);
      stored += inputs.length;
      await readings.store(inputs, kind === 'chunks' ? { syncRunId: 1 } : {});
    }
    const seconds = (performance.now() - started) / 1000;
    if (kind === 'rows') await database.db.execute(sql`update device_readings set sync_run_id = 1`);
    await database.db.execute(sql`vacuum full analyze`);
    const result = await database.db.execute<{ bytes: string; n: string; chunks: string }>(sql`
      select (select coalesce(sum(pg_total_relation_size(inhrelid)), 0) from pg_inherits
               where inhparent = 'device_readings'::regclass)
             + pg_total_relation_size('device_reading_chunks')
             + pg_total_relation_size('device_reading_days') as bytes,
             (select count(*) from stored_readings) as n,
             (select count(*) from device_reading_chunks) as chunks`);
    const row = result.rows[0]!;
    if (Number(row.n) !== stored) throw new Error(`${kind}: ${row.n} readings of ${stored}`);
    return {
      readings: stored,
      chunks: Number(row.chunks),
      bytesPerReading: Number(row.bytes) / Number(row.n),
      seconds,
    };
  } finally {
    await database.close();
  }
}

const rows = await measure('rows');
const chunks = await measure('chunks');
console.log(
  `CGM storage: ${PARTICIPANTS} participants × ${DAYS} days, ${rows.readings.toLocaleString('en')} readings (egv with JSON, trend rate)`,
);
console.log(
  `  rows:   ${rows.bytesPerReading.toFixed(1)} B per reading, stored in ${rows.seconds.toFixed(1)} s`,
);
console.log(
  `  chunks: ${chunks.bytesPerReading.toFixed(1)} B per reading (${chunks.chunks} day chunks), stored in ${chunks.seconds.toFixed(1)} s`,
);
console.log(
  `  chunks vs rows: ${(chunks.bytesPerReading / rows.bytesPerReading).toFixed(3)}× the bytes, ${(chunks.seconds / rows.seconds).toFixed(2)}× the time`,
);
console.log(
  JSON.stringify({
    rowsBytesPerReading: Number(rows.bytesPerReading.toFixed(1)),
    chunksBytesPerReading: Number(chunks.bytesPerReading.toFixed(1)),
    bytesRatio: Number((chunks.bytesPerReading / rows.bytesPerReading).toFixed(3)),
    timeRatio: Number((chunks.seconds / rows.seconds).toFixed(2)),
  }),
);
