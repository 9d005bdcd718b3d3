/**
 * Readings at trial scale (issue 29), on PostgreSQL only (TEST_DATABASE_URL, else
 * DATABASE_URL, else postgres://postgres@127.0.0.1:5432/postgres). Two databases of its own
 * in one run, S and L, created and dropped by the bench. They differ by history only
 * (decision 0260): the same participants, S holding the last 32 days of 5-second heart rate
 * (552,960 readings a participant) and L the same 32 days with nine times as many before them
 * (320 days), so every fixed-window page (one day, 30-day summary, completeness, a
 * participant-day and a participant-month export) reads the same data at both sizes and only
 * the history behind it grows. 10 participants (S 5.5 M, L 55 M readings); `--quick` 1
 * participant (S 0.55 M, L 5.5 M). History is stored as the product stores it (decision
 * 0255: hour chunks in device_reading_chunks, built by bulk SQL, the day summary rebuilt from
 * it); samples go through the product's write path (ReadingsService.store with a sync run, so
 * into chunks). Each figure is printed with its reference measured in the same run:
 * - bytes per stored reading of 5-second heart rate (every readings table, its indexes and
 *   TOAST, and the day summary) — goal ≤ 12;
 * - ingest: the write path against COPY of as many rows into device_readings, at S and L
 *   (goal ≥ 0.4× at both), and a 15-minute incremental sync (180 readings of 5-second heart
 *   rate) at L against S (goal ≤ 1.2×);
 * - page queries (the readings service's reads behind each page) at L against S (goal
 *   ≤ 1.2×): overview, stored-readings first and last page, one local day of heart rate,
 *   30-day summary, the trial's 30-day completeness grid (the real call), CSV exports of a
 *   participant-day (17,280 readings) and a participant-month (30 days, 518,400 readings);
 * - the one-day heart-rate data call (the Fitbit data page's
 *   `/api/getFitbitServerParticipantData/…/activities/heart/date/D/1d/1sec.json`, through
 *   buildApp + inject with a signed-in session, answered from the store) against its floor:
 *   one plain SQL query of the same day's points as rows and `JSON.stringify` of them (goal
 *   ≤ 3×), at S and L.
 * Ends with one JSON line. Figures, never assertions. Run:
 * `node --import tsx bench/scale.ts [--quick]`.
 */
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';
import { Readable, Writable } from 'node:stream';
import { eq, sql } from 'drizzle-orm';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Database } from '../apps/server/src/db/client';
import { globalDeviceCatalog, participantDevices, syncCursors } from '../apps/server/src/db/schema';
import { createManualClock } from '../apps/server/src/lib/clock';
import { createTestApp, type TestApp } from '../apps/server/src/test/test-app';
import { createTestDatabase } from '../apps/server/src/test/test-database';
import { createStaffUser, signIn, type TestClient } from '../apps/server/src/test/fixtures';
import { allowAllBrands } from '../apps/server/src/modules/devices/test-support';
import { rebuildReadingDays } from '../apps/server/src/modules/sync/daily-summary';
import {
  createParticipants,
  readingsServiceFor,
} from '../apps/server/src/modules/sync/test-support';
import type {
  ReadingInput,
  ReadingsService,
} from '../apps/server/src/modules/sync/readings.service';

const QUICK = process.argv.includes('--quick');
const DIVISOR = QUICK ? 10 : 1;
/** Participants in each database, the same at both sizes. */
const PARTICIPANTS = 10 / DIVISOR;
/**
 * Days of 5-second heart rate per participant (17,280 readings a day), ending at
 * HISTORY_END: S the last 32 (every 30-day window of the pages is whole), L ten times as
 * many, the same last 32 days and 288 before them.
 */
const HISTORY_DAYS = { S: 32, L: 320 } as const;
const POINTS_PER_HOUR = 720;
/** Readings the ingest comparison writes each way (write path, COPY). */
const INGEST_ROWS = 200_000 / DIVISOR;
const PAGE_RUNS = QUICK ? 15 : 30;
/** A participant-month's export and the stored-readings last page take seconds: fewer runs. */
const MONTH_RUNS = QUICK ? 3 : 5;
const DEEP_RUNS = QUICK ? 3 : 5;
const INCREMENTAL_RUNS = QUICK ? 10 : 20;
const NOW = new Date('2026-11-28T12:00:00Z');
/** History ends here; the write path's samples come after it. */
const HISTORY_END = Date.UTC(2026, 10, 20);
const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

type Size = keyof typeof HISTORY_DAYS;
type Fixture = {
  size: Size;
  database: Database;
  readings: ReadingsService;
  teamId: number;
  trialId: number;
  participantIds: number[];
  readingsCount: number;
  /** The real app on this database, and a signed-in Admin of the team. */
  app: TestApp;
  admin: TestClient;
};

function serverUrl(): string {
  return (
    process.env.TEST_DATABASE_URL ??
    process.env.DATABASE_URL ??
    'postgres://postgres@127.0.0.1:5432/postgres'
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
const ratio = (value: number) => `${value.toFixed(2)}×`;

async function build(size: Size): Promise<Fixture> {
  const started = performance.now();
  const database = await createTestDatabase();
  const { teamId, trialId, participantIds } = await createParticipants(database.db, PARTICIPANTS);
  const hours = HISTORY_DAYS[size] * 24;
  const first = new Date(HISTORY_END - hours * HOUR);
  await database.db.execute(
    sql`select device_readings_ensure_partitions(${first.toISOString()}::timestamptz, ${new Date(NOW.getTime() + DAY).toISOString()}::timestamptz)`,
  );
  // One participant per statement: bounded memory and WAL per statement. Integer bpm on a
  // slow wave with 0–3 bpm of noise, CET offsets: what a sync of a watch stores.
  for (const participantId of participantIds) {
    await database.db.execute(sql`
      insert into device_reading_chunks (participant_id, team_id, metric_key, period_start, brand, last_at,
                                         steps_ms, value, utc_offset_minutes, upstream, data_source, sync_run_id, synced_at)
      select ${participantId}, ${teamId}, 'heart_rate', hour, 'Fitbit', hour + interval '3595 seconds',
             array[0] || array_fill(5000, array[${POINTS_PER_HOUR - 1}::int]),
             (select array_agg((70 + round(15 * sin((extract(epoch from hour) / 5 + i) / 600.0)) + floor(random() * 4))::float8 order by i)
                from generate_series(0, ${POINTS_PER_HOUR - 1}::int) as i),
             array_fill(60::smallint, array[${POINTS_PER_HOUR}::int]), 'google-health', 'Charge 6', 1,
             ${NOW.toISOString()}::timestamptz
        from generate_series(${first.toISOString()}::timestamptz, ${new Date(HISTORY_END - HOUR).toISOString()}::timestamptz, interval '1 hour') as hour`);
  }
  await rebuildReadingDays(database.db);
  await database.db.execute(sql`vacuum analyze device_reading_chunks`);
  const readingsCount = PARTICIPANTS * hours * POINTS_PER_HOUR;
  console.log(
    `${size}: ${readingsCount.toLocaleString('en')} readings (${PARTICIPANTS} participants × ${HISTORY_DAYS[size]} days of 5-second heart rate, in ${(PARTICIPANTS * hours).toLocaleString('en')} hour chunks) built in ${((performance.now() - started) / 1000).toFixed(0)} s`,
  );
  const { app, admin } = await appOn(database, teamId, participantIds, first);
  return {
    size,
    database,
    readings: readingsServiceFor(database.db, () => NOW),
    teamId,
    trialId,
    participantIds,
    readingsCount,
    app,
    admin,
  };
}

/**
 * The real app on the fixture's database (clock at NOW), a signed-in Admin of the team, and
 * a Fitbit connection for every participant whose heart-rate and resting-rate cursors cover
 * the history, so the Fitbit data call answers from the store as after a sync.
 */
async function appOn(
  database: Database,
  teamId: number,
  participantIds: number[],
  historyFrom: Date,
): Promise<{ app: TestApp; admin: TestClient }> {
  const app = await createTestApp({
    database,
    clock: createManualClock(NOW),
    env: { LOG_LEVEL: 'silent' },
  });
  const db = database.db;
  const admin = await signIn(app.app, db, await createStaffUser(db, { role: 'Admin', teamId }));
  await allowAllBrands(db, teamId);
  const [catalog] = await db
    .select({ id: globalDeviceCatalog.id })
    .from(globalDeviceCatalog)
    .where(eq(globalDeviceCatalog.manufacturer, 'Fitbit'));
  for (const participantId of participantIds) {
    const [device] = await db
      .insert(participantDevices)
      .values({
        teamId,
        participantId,
        globalDeviceCatalogId: catalog!.id,
        upstream: 'google-health',
        authorizationStatus: 'authorized',
        authorizationDate: historyFrom,
      })
      .returning({ id: participantDevices.id });
    await db.insert(syncCursors).values(
      ['heart_rate', 'resting_heart_rate'].map((metricKey) => ({
        participantDeviceId: device!.id,
        teamId,
        metricKey,
        backfillFrom: historyFrom,
        syncedUntil: NOW,
      })),
    );
  }
  return { app, admin };
}

/** 5-second heart rate of every participant from `start`, `count` readings in all. */
function heartRate(fixture: Fixture, start: number, count: number, shiftMs = 0): ReadingInput[] {
  const perParticipant = Math.ceil(count / fixture.participantIds.length);
  return fixture.participantIds
    .flatMap((participantId) =>
      Array.from({ length: perParticipant }, (_, index) => ({
        participantId,
        teamId: fixture.teamId,
        brand: 'Fitbit' as const,
        metricKey: 'heart_rate',
        recordedAt: new Date(start + index * 5000 + shiftMs),
        utcOffsetMinutes: 60,
        value: 55 + (index % 60),
        upstream: 'google-health' as const,
        dataSource: 'Charge 6',
      })),
    )
    .slice(0, count);
}

const COPY_SQL = `COPY device_readings (participant_id, team_id, metric_key, recorded_at, brand, utc_offset_minutes, value, upstream, data_source) FROM STDIN WITH (FORMAT csv)`;

async function copyRows(database: Database, rows: ReadingInput[]): Promise<void> {
  const csv =
    rows
      .map(
        (r) =>
          `${r.participantId},${r.teamId},${r.metricKey},${r.recordedAt.toISOString()},${r.brand},${r.utcOffsetMinutes},${r.value},${r.upstream},${r.dataSource}`,
      )
      .join('\n') + '\n';
  const pool = (database.db as unknown as { $client: pg.Pool }).$client;
  const client = await pool.connect();
  try {
    await pipeline(Readable.from([csv]), client.query(copyFrom(COPY_SQL)));
  } finally {
    client.release();
  }
}

/** Write path and COPY of INGEST_ROWS each, the day after the history (same partition). */
async function ingest(fixture: Fixture) {
  const start = HISTORY_END + DAY;
  const written = heartRate(fixture, start, INGEST_ROWS);
  let began = performance.now();
  await fixture.readings.store(written, { syncRunId: 2 });
  const storeSeconds = (performance.now() - began) / 1000;
  // The store as the product keeps it, before COPY adds rows no sync would store.
  const bytes = await bytesPerReading(fixture);
  // The same rows 2.5 s later: new keys in the same partition, none of the write path's.
  const copied = heartRate(fixture, start, INGEST_ROWS, 2500);
  began = performance.now();
  await copyRows(fixture.database, copied);
  const copySeconds = (performance.now() - began) / 1000;
  return {
    bytes,
    storeRate: INGEST_ROWS / storeSeconds,
    copyRate: INGEST_ROWS / copySeconds,
    ratio: copySeconds / storeSeconds,
  };
}

/** A 15-minute incremental sync: 180 new 5-second readings of one participant, median ms. */
async function incremental(fixture: Fixture): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < INCREMENTAL_RUNS; run += 1) {
    const participantId = fixture.participantIds[run % fixture.participantIds.length]!;
    const start = HISTORY_END + 3 * DAY + run * 15 * MINUTE;
    const rows = heartRate({ ...fixture, participantIds: [participantId] }, start, 180);
    const began = performance.now();
    await fixture.readings.store(rows, { syncRunId: 3 + run });
    times.push(performance.now() - began);
  }
  return median(times);
}

/**
 * Median of `runs` runs after one unmeasured run; `warm: false` skips that run for the
 * reads of seconds (a deep page, a participant-month), whose first run warms little.
 */
async function timed(
  runs: number,
  work: () => Promise<unknown>,
  options: { warm?: boolean } = {},
): Promise<number> {
  if (options.warm !== false) await work();
  const times: number[] = [];
  for (let run = 0; run < runs; run += 1) {
    const began = performance.now();
    await work();
    times.push(performance.now() - began);
  }
  return median(times);
}

/** The reads behind each page, for the first participant; p50 in ms. */
async function pages(fixture: Fixture): Promise<Record<string, number>> {
  const { readings, teamId } = fixture;
  const participantId = fixture.participantIds[0]!;
  const scope = { teamId, participantId, brand: 'Fitbit' as const };
  const first = await readings.page(scope, {
    page: { index: 0, size: 50 },
    sort: null,
    filter: '',
  });
  const lastIndex = Math.max(0, Math.ceil(first.total / 50) - 1);
  const lastDay = new Date(HISTORY_END - DAY).toISOString().slice(0, 10);
  const dayFrom = new Date(HISTORY_END - DAY);
  const monthFrom = new Date(HISTORY_END - 30 * DAY).toISOString().slice(0, 10);
  const csvOf = (from: Date) => async () => {
    const csv = readings.csv(
      { teamId, participantId, brand: 'Fitbit', from, to: new Date(HISTORY_END) },
      {
        participantCode: 'P',
        metrics: [{ metricKey: 'heart_rate', metricName: 'Heart rate', units: 'bpm' }],
      },
      { header: true },
    );
    await pipeline(
      csv.stream,
      new Writable({
        write(_chunk, _encoding, done) {
          done();
        },
      }),
    );
  };
  return {
    // The overview: per metric and brand rows, first and last (then the last value).
    overview: await timed(PAGE_RUNS, async () => {
      const stats = await readings.stats(teamId, participantId);
      for (const stat of stats)
        await readings.read(
          {
            teamId,
            participantId,
            brand: stat.brand,
            metricKeys: [stat.metricKey],
            from: stat.latest,
            to: new Date(stat.latest.getTime() + 1),
          },
          { limit: 1 },
        );
    }),
    storedFirst: await timed(PAGE_RUNS, () =>
      readings.page(scope, { page: { index: 0, size: 50 }, sort: null, filter: '' }),
    ),
    // Read by position (decision 0256); fewer runs, not warmed: the oldest readings' chunks.
    storedLast: await timed(
      DEEP_RUNS,
      () => readings.page(scope, { page: { index: lastIndex, size: 50 }, sort: null, filter: '' }),
      { warm: false },
    ),
    oneDay: await timed(PAGE_RUNS, () =>
      readings.read({
        teamId,
        participantId,
        metricKeys: ['heart_rate'],
        from: new Date(Date.parse(lastDay) - 14 * 3_600_000),
        to: new Date(Date.parse(lastDay) + 36 * 3_600_000),
        localDays: { start: lastDay, end: lastDay },
      }),
    ),
    summary30: await timed(PAGE_RUNS, () =>
      readings.dailySummaries(teamId, fixture.participantIds, monthFrom, lastDay),
    ),
    // The trial's grid of the last 30 days through the real call (the clock's today is
    // 2026-11-28: 30-10-30 … 11-20 hold history at both sizes).
    completeness30: await timed(Math.ceil(PAGE_RUNS / 3), async () => {
      const response = await fixture.admin.get(
        `/api/trials/${fixture.trialId}/completeness?days=30`,
      );
      if (response.statusCode !== 200)
        throw new Error(`completeness: ${response.statusCode} ${response.body}`);
    }),
    exportDay: await timed(Math.ceil(PAGE_RUNS / 3), csvOf(dayFrom)),
    exportMonth: await timed(MONTH_RUNS, csvOf(new Date(HISTORY_END - 30 * DAY)), {
      warm: false,
    }),
  };
}

/**
 * The one-day heart-rate data call against its floor, alternated run by run: the Fitbit data
 * page's call for the last local day (CET) of the first participant, through the app with a
 * signed-in Admin, answered from the store (17,280 points); and one plain SQL query of the
 * same day's points as rows (instant, value, offset) from `stored_readings`, bounded as the
 * readers bound it, then `JSON.stringify` of them. Also, for reference, the same points as
 * their 24–25 hour chunks' arrays (no unnesting) and `JSON.stringify`.
 */
async function oneDayCall(fixture: Fixture) {
  const participantId = fixture.participantIds[0]!;
  const day = new Date(HISTORY_END - DAY).toISOString().slice(0, 10);
  const url = `/api/getFitbitServerParticipantData/${participantId}/hidden/activities/heart/date/${day}/1d/1sec.json`;
  // The local day at +01:00, as the bench's offsets.
  const from = new Date(Date.parse(day) - HOUR);
  const to = new Date(from.getTime() + DAY);
  const db = fixture.database.db;
  const check = await fixture.admin.get(url);
  const points = (check.json() as { 'activities-heart-intraday'?: { dataset?: unknown[] } })[
    'activities-heart-intraday'
  ]?.dataset?.length;
  if (check.statusCode !== 200 || points !== 17_280)
    throw new Error(`one-day call: ${check.statusCode} with ${points} points, not 17,280`);
  const floorRows = async () => {
    const result = await db.execute(sql`
      select recorded_at, value, utc_offset_minutes from stored_readings
       where participant_id = ${participantId} and team_id = ${fixture.teamId}
         and metric_key = 'heart_rate' and brand = 'Fitbit'
         and recorded_at >= ${from.toISOString()}::timestamptz and recorded_at < ${to.toISOString()}::timestamptz
         and chunk_from > ${new Date(from.getTime() - DAY).toISOString()}::timestamptz
         and chunk_from < ${to.toISOString()}::timestamptz and chunk_to >= ${from.toISOString()}::timestamptz
       order by recorded_at`);
    if (result.rows.length !== 17_280) throw new Error(`floor: ${result.rows.length} points`);
    return JSON.stringify(result.rows).length;
  };
  const floorArrays = async () => {
    const result = await db.execute(sql`
      select period_start, steps_ms, value, utc_offset_minutes from device_reading_chunks
       where participant_id = ${participantId} and team_id = ${fixture.teamId}
         and metric_key = 'heart_rate' and brand = 'Fitbit'
         and period_start >= ${new Date(from.getTime() - HOUR).toISOString()}::timestamptz
         and period_start < ${to.toISOString()}::timestamptz and last_at >= ${from.toISOString()}::timestamptz
       order by period_start`);
    return JSON.stringify(result.rows).length;
  };
  const call = async () => {
    const response = await fixture.admin.get(url);
    if (response.statusCode !== 200) throw new Error(`one-day call: ${response.statusCode}`);
    return response.body.length;
  };
  const runs = { call: [] as number[], floor: [] as number[], arrays: [] as number[] };
  // Warm each once, then alternate so neither side always runs on a warmer cache.
  await call();
  await floorRows();
  await floorArrays();
  for (let run = 0; run < PAGE_RUNS; run += 1) {
    for (const [name, work] of [
      ['call', call],
      ['floor', floorRows],
      ['arrays', floorArrays],
    ] as const) {
      const began = performance.now();
      await work();
      runs[name].push(performance.now() - began);
    }
  }
  const callMs = median(runs.call);
  const floorMs = median(runs.floor);
  return { callMs, floorMs, arraysMs: median(runs.arrays), ratio: callMs / floorMs };
}

/**
 * Bytes per stored reading: every table that holds readings (the row partitions, the
 * chunks, with indexes and TOAST) and the day summary, over the readings they hold.
 */
async function bytesPerReading(fixture: Fixture): Promise<number> {
  await fixture.database.db.execute(sql`vacuum analyze device_reading_chunks`);
  const result = await fixture.database.db.execute<{ bytes: string; n: string }>(sql`
    select (select coalesce(sum(pg_total_relation_size(inhrelid)), 0) from pg_inherits
             where inhparent = 'device_readings'::regclass)
           + pg_total_relation_size('device_reading_chunks')
           + pg_total_relation_size('device_reading_days') as bytes,
           (select count(*) from device_readings)
           + (select coalesce(sum(cardinality(steps_ms)), 0) from device_reading_chunks) as n`);
  const row = result.rows[0]!;
  return Number(row.bytes) / Number(row.n);
}

async function main() {
  process.env.TEST_DATABASE_URL = serverUrl();
  const began = performance.now();
  console.log(
    `Readings at trial scale (issue 29)${QUICK ? ' --quick' : ''}, PostgreSQL at ${new URL(serverUrl()).host}`,
  );
  const fixtures: Partial<Record<Size, Fixture>> = {};
  try {
    const results: Partial<
      Record<
        Size,
        {
          ingest: Awaited<ReturnType<typeof ingest>>;
          incremental: number;
          pages: Record<string, number>;
          bytes: number;
          oneDay: Awaited<ReturnType<typeof oneDayCall>>;
        }
      >
    > = {};
    for (const size of ['S', 'L'] as const) {
      const fixture = await build(size);
      fixtures[size] = fixture;
      const pageTimes = await pages(fixture);
      const oneDay = await oneDayCall(fixture);
      const ingestFigures = await ingest(fixture);
      await fixture.database.db.execute(sql`analyze device_readings`);
      const incrementalMs = await incremental(fixture);
      results[size] = {
        ingest: ingestFigures,
        incremental: incrementalMs,
        pages: pageTimes,
        bytes: ingestFigures.bytes,
        oneDay,
      };
      // S is no longer needed once measured: free the server's cache for L.
      await fixture.app.close();
      await fixture.database.close();
      delete fixtures[size];
    }
    const s = results.S!;
    const l = results.L!;
    console.log("\nStorage (L, after the write path's ingest)");
    console.log(
      `  bytes per reading of 5-second heart rate (rows, chunks, day summary): ${l.bytes.toFixed(2)} (S ${s.bytes.toFixed(2)}); goal ≤ 12 — ${l.bytes <= 12 ? 'met' : 'NOT met'}`,
    );
    console.log('\nIngest: write path vs COPY of as many rows into the same table (goal ≥ 0.4×)');
    for (const [size, figures] of [
      ['S', s],
      ['L', l],
    ] as const) {
      console.log(
        `  ${size}: write path ${Math.round(figures.ingest.storeRate).toLocaleString('en')} rows/s, COPY ${Math.round(figures.ingest.copyRate).toLocaleString('en')} rows/s: ${ratio(figures.ingest.ratio)}`,
      );
    }
    const incrementalRatio = l.incremental / s.incremental;
    console.log(
      `  15-minute incremental sync (180 rows): S ${ms(s.incremental)}, L ${ms(l.incremental)}: ${ratio(incrementalRatio)} (goal ≤ 1.2×)`,
    );
    console.log('\nPage queries, p50, L against S (goal ≤ 1.2×)');
    const pageGrowth: Record<string, number> = {};
    for (const name of Object.keys(s.pages)) {
      pageGrowth[name] = Number((l.pages[name]! / s.pages[name]!).toFixed(2));
      console.log(
        `  ${name.padEnd(12)} S ${ms(s.pages[name]!).padStart(10)}  L ${ms(l.pages[name]!).padStart(10)}  ${ratio(pageGrowth[name])}`,
      );
    }
    console.log(
      '\nOne-day heart-rate data call (17,280 points) against one SQL query of its points + JSON.stringify, p50 (goal ≤ 3×)',
    );
    for (const [size, figures] of [
      ['S', s],
      ['L', l],
    ] as const) {
      console.log(
        `  ${size}: call ${ms(figures.oneDay.callMs)}, floor (rows) ${ms(figures.oneDay.floorMs)}: ${ratio(figures.oneDay.ratio)} — ${figures.oneDay.ratio <= 3 ? 'met' : 'NOT met'} (the hour chunks' arrays + JSON.stringify: ${ms(figures.oneDay.arraysMs)}, ${ratio(figures.oneDay.callMs / figures.oneDay.arraysMs)})`,
      );
    }
    console.log(
      `\nList pages (1k trials / 50k participants): bench/list-pages.ts; not part of this bench. Took ${((performance.now() - began) / 1000).toFixed(0)} s`,
    );
    console.log(
      JSON.stringify({
        bytesPerReading: Number(l.bytes.toFixed(2)),
        ingestVsCopy: [Number(s.ingest.ratio.toFixed(2)), Number(l.ingest.ratio.toFixed(2))],
        incrementalLvsS: Number(incrementalRatio.toFixed(2)),
        pageGrowth,
        oneDayVsFloor: Number(l.oneDay.ratio.toFixed(2)),
      }),
    );
  } finally {
    for (const fixture of Object.values(fixtures)) {
      await fixture?.app.close();
      await fixture?.database.close();
    }
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
