/**
 * Benchmark: the trial completeness grid (issue 20) for many participants × 90 days of
 * minute-level heart rate (plus daily steps and a CGM for every fourth participant), through
 * the real app (`GET /api/trials/:id/completeness?days=90`), against a plain
 * `SELECT count(*)` over the same rows in the same run. PostgreSQL when TEST_DATABASE_URL
 * is set (200 participants by default), else PGlite in memory (50). Prints figures;
 * asserts nothing. BENCH_PARTICIPANTS, BENCH_WEAR_MINUTES and BENCH_RUNS override.
 * Run: `npm run bench` (or `node --import tsx bench/completeness.ts`).
 *
 * The fixture is written with one INSERT … SELECT generate_series per participant (the
 * write path's cost is not what is measured here): each participant wears the tracker
 * `BENCH_WEAR_MINUTES` minutes a day (default 600), minute by minute. Written around the
 * write path, its day summary (decision 0058) is then built in one statement, as migration
 * 0011 does for readings stored before it (timed and printed).
 *
 * Before and after in the same run: the grid's rows built from the raw readings (one
 * GROUP BY over them, as before decision 0058) and from the day summary, then the HTTP grid.
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { createTestApp } from '../apps/server/src/test/test-app';
import { createStaffUser, createTeam, signIn } from '../apps/server/src/test/fixtures';
import { COMPLETENESS_DEFAULTS } from '@trialpulse/shared';
import { systemClock } from '../apps/server/src/lib/clock';
import { createRowsBuilder } from '../apps/server/src/modules/completeness/completeness.service';
import { createConnectionHealth } from '../apps/server/src/modules/devices/device-connections.service';
import { createDevicesRepository } from '../apps/server/src/modules/devices/devices.repository';
import {
  dailySummariesFromReadings,
  rebuildReadingDays,
  refreshReadingDays,
} from '../apps/server/src/modules/sync/daily-summary';
import { createReadingsRepository } from '../apps/server/src/modules/sync/readings.repository';
import { createReadingsService } from '../apps/server/src/modules/sync/readings.service';
import { createSyncRepository } from '../apps/server/src/modules/sync/sync.repository';
import { createParticipantsBulk } from './completeness-fixture';

// 200 × 90 days is 12 million readings: minutes to load on PostgreSQL, too much for
// in-memory PGlite, which gets 50 unless told otherwise.
const PARTICIPANTS = Number(
  process.env.BENCH_PARTICIPANTS ?? (process.env.TEST_DATABASE_URL ? 200 : 50),
);
const DAYS = 90;
const WEAR_MINUTES = Number(process.env.BENCH_WEAR_MINUTES ?? 600);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

const ctx = await createTestApp({ env: { LOG_LEVEL: 'silent' } });
const db = ctx.database.db;
const team = await createTeam(db, {
  maxTrials: 10,
  maxParticipants: PARTICIPANTS + 10,
  hiddenFields: [],
});
const adminUser = await createStaffUser(db, { role: 'Admin', teamId: team.id });
const admin = await signIn(ctx.app, db, adminUser);

const loadStarted = performance.now();
const { trialId, participantIds, from, to } = await createParticipantsBulk(db, {
  teamId: team.id,
  ownerUserId: adminUser.id,
  participants: PARTICIPANTS,
  days: DAYS,
  wearMinutes: WEAR_MINUTES,
});
const loadMs = performance.now() - loadStarted;
const summaryStarted = performance.now();
await rebuildReadingDays(db);
const summaryMs = performance.now() - summaryStarted;
const [{ rows }] = (await db.execute(sql`select count(*)::int as rows from device_readings`))
  .rows as [{ rows: number }];
console.log(
  `completeness: ${PARTICIPANTS} participants × ${DAYS} days, ${WEAR_MINUTES} worn minutes/day, ${rows.toLocaleString('en')} readings ` +
    `(loaded in ${(loadMs / 1000).toFixed(1)} s, day summary built in ${(summaryMs / 1000).toFixed(1)} s), ${ctx.database.kind}, Node ${process.version}`,
);

const countSql = sql`select count(*) from device_readings
  where team_id = ${team.id} and participant_id in (${sql.raw(participantIds.join(','))})
    and recorded_at >= ${from}::date - interval '14 hours' and recorded_at < ${to}::date + interval '36 hours'`;

async function time(name: string, call: () => Promise<unknown>): Promise<number> {
  await call(); // warm-up
  const timings: number[] = [];
  for (let run = 0; run < RUNS; run += 1) {
    const started = performance.now();
    await call();
    timings.push(performance.now() - started);
  }
  timings.sort((a, b) => a - b);
  const median = timings[Math.floor(timings.length / 2)]!;
  console.log(
    `${name.padEnd(58)} median ${median.toFixed(0).padStart(6)} ms  min ${timings[0]!.toFixed(0)} ms  max ${timings.at(-1)!.toFixed(0)} ms`,
  );
  return median;
}

const reference = await time('SELECT count(*) over the same rows (reference)', () =>
  db.execute(countSql),
);
const readings = createReadingsService({
  readings: createReadingsRepository(db),
  sync: createSyncRepository(db),
});
const devices = createConnectionHealth({ repository: createDevicesRepository(db) });
const participantsOfTrial = participantIds.map((id, index) => ({ id, code: `BENCH-${index}` }));
const days = Array.from({ length: DAYS }, (_, index) =>
  new Date(Date.parse(`${from}T00:00:00Z`) + index * 86_400_000).toISOString().slice(0, 10),
);
// The same builder, its day figures read from the raw readings instead of the day summary.
const rowsBefore = createRowsBuilder({
  readings: {
    ...readings,
    dailySummaries: (teamId, ids, fromDay, toDay) =>
      dailySummariesFromReadings(db, teamId, ids, fromDay, toDay),
  },
  devices,
  clock: systemClock,
});
const rowsAfter = createRowsBuilder({ readings, devices, clock: systemClock });
const before = await time('before: grid rows from the raw readings (GROUP BY)', () =>
  rowsBefore(team.id, participantsOfTrial, days, COMPLETENESS_DEFAULTS),
);
const after = await time('after: grid rows from the day summary', () =>
  rowsAfter(team.id, participantsOfTrial, days, COMPLETENESS_DEFAULTS),
);
await time('after: the day summary query alone', () =>
  readings.dailySummaries(team.id, participantIds, from, to),
);
const grid = await time(
  `after: GET /api/trials/:id/completeness?days=90 (${PARTICIPANTS} rows)`,
  async () => {
    const response = await admin.get(`/api/trials/${trialId}/completeness?days=90`);
    if (response.statusCode !== 200)
      throw new Error(`grid: HTTP ${response.statusCode} ${response.body}`);
    return response;
  },
);
// The fixed cost of any signed-in request (session, access check) for comparison.
const request = await time('a small signed-in request (digest opt-in, fixed cost)', () =>
  admin.get(`/api/trials/${trialId}/completeness/digest`),
);
// The write path's cost of keeping the summary: one participant-day of minute heart rate
// (1,440 readings) stored with changed values each run, into the full table, and the
// summary refresh of that day alone (what the write path adds).
let version = 0;
const oneDay = () => {
  version += 1;
  return Array.from({ length: 1440 }, (_, minute) => ({
    participantId: participantIds[0]!,
    teamId: team.id,
    brand: 'Fitbit' as const,
    metricKey: 'heart_rate',
    recordedAt: new Date(Date.parse(`${to}T00:00:00Z`) + minute * 60_000),
    utcOffsetMinutes: 0,
    value: 60 + ((minute + version) % 40),
    upstream: 'google-health' as const,
  }));
};
const store = await time('write path: store 1,440 changed readings (one day)', () =>
  readings.store(oneDay()),
);
const refresh = await time('of which: refresh of that day summary alone', () =>
  db.transaction((tx) =>
    refreshReadingDays(tx, [
      { participantId: participantIds[0]!, teamId: team.id, metricKey: 'heart_rate', day: to },
    ]),
  ),
);
const sameFigures =
  JSON.stringify(await rowsBefore(team.id, participantsOfTrial, days, COMPLETENESS_DEFAULTS)) ===
  JSON.stringify(await rowsAfter(team.id, participantsOfTrial, days, COMPLETENESS_DEFAULTS));
console.log(
  `before ÷ count(*): ${(before / reference).toFixed(2)}×   after ÷ count(*): ${(after / reference).toFixed(2)}×   ` +
    `HTTP grid ÷ count(*): ${(grid / reference).toFixed(2)}× (small request ${(request / reference).toFixed(2)}×)   speed-up: ${(before / after).toFixed(1)}×   same rows: ${sameFigures ? 'yes' : 'NO'}`,
);
console.log(
  `write path: the summary refresh is ${((refresh / store) * 100).toFixed(0)} % of storing one changed day`,
);
await ctx.close();
