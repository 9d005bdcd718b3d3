import { sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  CHUNK_PERIOD_MAX_MS,
  storedReadingsWithin,
  storedReadingsWithinSql,
} from './stored-readings';

/**
 * The per-day summary of stored readings (`device_reading_days`, decision 0058): one row per
 * participant, metric and local civil day with the readings counted, distinct minutes, the
 * sum of values and the first and last `recorded_at`. The write path (`refreshReadingDays`
 * in the readings upsert's transaction) and the retention purge keep it equal to what
 * `device_readings` holds; the completeness grid reads it instead of the raw readings.
 */

/** One participant's civil day as the completeness grid needs it. */
export type DailySummary = {
  participantId: number;
  /** Civil date (YYYY-MM-DD) in the participant's local time (decision 0051). */
  day: string;
  /** Minutes with at least one heart-rate sample. */
  wearMinutes: number;
  steps: number | null;
  sleepMinutes: number | null;
  bpReadings: number;
  weightReadings: number;
  cgmReadings: number;
};

/** A (participant, metric, local day) whose summary row must be recomputed. */
export type ReadingDayKey = {
  participantId: number;
  teamId: number;
  metricKey: string;
  day: string;
};

/**
 * The local civil date a reading of `alias` (a `device_readings` row) counts on (decision
 * 0051): its instant — a session's end — plus its UTC offset (null: 0), as a date. Epoch
 * arithmetic in double precision: cheaper per row than interval and time-zone functions.
 */
export function readingDay(alias: string): SQL {
  const r = sql.raw(alias);
  return sql`(date '1970-01-01' + floor((date_part('epoch', coalesce(${r}.end_at, ${r}.recorded_at)) + coalesce(${r}.utc_offset_minutes, 0) * 60) / 86400)::int)`;
}

/**
 * Where a day's readings lie on `recorded_at` (partition pruning, the key's range): a sample
 * of day D lies in [D − 14 h, D + 36 h) for offsets UTC−12 … UTC+14; a session counts on its
 * end and may start up to a day earlier, hence 38 h before.
 */
const BEFORE_DAY = "interval '38 hours'";
const AFTER_DAY = "interval '36 hours'";
const BEFORE_DAY_MS = 38 * 3_600_000;
/** A sample (no end) of day D lies from D − 14 h on (UTC+14). */
const BEFORE_SAMPLE_DAY = "interval '14 hours'";
const AFTER_DAY_MS = 36 * 3_600_000;

/** Advisory lock space of the summary rows: key (20058, participant id). */
const LOCK_SPACE = 20058;

/**
 * Recomputes the summary rows of `keys` from `device_readings`, in the caller's transaction:
 * one set-based statement (a key whose day lost its last reading loses its row; a row whose
 * figures are unchanged is not rewritten). Takes a transaction-scoped advisory lock per
 * participant first, so two transactions writing one participant's day cannot each save a
 * count that misses the other's rows: the second recomputes after the first commits. The
 * same statement turns JIT off for the rest of the transaction (`writeWithoutJit`).
 */
export async function refreshReadingDays(
  tx: DbOrTx,
  keys: readonly ReadingDayKey[],
): Promise<void> {
  if (keys.length === 0) return;
  const participantIds = [...new Set(keys.map((key) => Math.trunc(key.participantId)))].sort(
    (a, b) => a - b,
  );
  await tx.execute(
    sql`select ${JIT_OFF}, pg_advisory_xact_lock(${LOCK_SPACE}, id) from unnest(${`{${participantIds.join(',')}}`}::int[]) as id order by id`,
  );
  await tx.execute(refreshReadingDaysStatement(keys));
}

/**
 * `set_config('jit', 'off', true)`: JIT off until the transaction ends (decision 0200). The
 * write path's statements join a JSON batch the planner guesses at 100 rows against the
 * readings; with many partitions the guess costs them over JIT's threshold, and compiling
 * costs ~0.7 s for a few milliseconds of work. PGlite knows the setting (it has no JIT).
 */
const JIT_OFF = sql`set_config('jit', 'off', true)`;

/**
 * Turns JIT off for the rest of the caller's transaction (decision 0200): the readings'
 * write transactions call it first, so neither the upsert nor the day summary's refresh can
 * fall into JIT compilation however many partitions the table has.
 */
export async function writeWithoutJit(tx: DbOrTx): Promise<void> {
  await tx.execute(sql`select ${JIT_OFF}`);
}

/**
 * The refresh of `keys` as one statement (what `refreshReadingDays` runs after its locks;
 * tests EXPLAIN it). The keys' whole window bounds `recorded_at` with constants as well as
 * each key's own range, so the planner keeps only the window's partitions when it plans
 * (decision 0200); the per-key range still prunes each lateral probe at run time.
 */
export function refreshReadingDaysStatement(keys: readonly ReadingDayKey[]): SQL {
  const payload = JSON.stringify(
    keys.map((key) => ({ p: key.participantId, t: key.teamId, m: key.metricKey, d: key.day })),
  );
  // Instants, not date arithmetic: interval arithmetic on timestamptz is only stable, and
  // the planner prunes partitions when it plans only on constants.
  let first = Infinity;
  let last = -Infinity;
  for (const key of keys) {
    const day = Date.parse(`${key.day}T00:00:00Z`);
    if (day < first) first = day;
    if (day > last) last = day;
  }
  if (!(first <= last)) first = last = 0;
  const windowFrom = new Date(first - BEFORE_DAY_MS);
  const windowTo = new Date(last + AFTER_DAY_MS);
  return sql`
    with keys as (
      select distinct k.p, k.t, k.m, k.d from json_to_recordset(${payload}::json) as k(p integer, t integer, m text, d date)
    ),
    fresh as (
      -- LATERAL: one index range scan per key, on the partitions of its range only (a join
      -- lets the planner hash the keys against every partition).
      select k.p, k.t, k.m, k.d, f.readings, f.minutes, f.value_sum, f.first_at, f.last_at
        from keys k
        cross join lateral (
          select count(*)::int as readings,
                 count(distinct floor(date_part('epoch', r.recorded_at) / 60))::int as minutes,
                 sum(r.value) as value_sum,
                 min(r.recorded_at) as first_at,
                 max(r.recorded_at) as last_at
            from stored_readings r
           where r.participant_id = k.p and r.team_id = k.t and r.metric_key = k.m
             and ${storedReadingsWithin('r', windowFrom, windowTo)}
             and ${storedReadingsWithinSql(
               'r',
               sql`(k.d::timestamp at time zone 'UTC') - ${sql.raw(BEFORE_DAY)}`,
               sql`(k.d::timestamp at time zone 'UTC') + ${sql.raw(AFTER_DAY)}`,
             )}
             -- A sample (no end: every chunk point) of day D lies from D − 14 h on; only a
             -- session may start 38 h before. On the chunks' side end_at is a null constant,
             -- so this bounds the chunks unnested per key to the day's 50 hours.
             and (r.end_at is not null or r.chunk_to >= (k.d::timestamp at time zone 'UTC') - ${sql.raw(BEFORE_SAMPLE_DAY)})
             and ${readingDay('r')} = k.d
        ) f
    ),
    emptied as (
      delete from device_reading_days s using fresh f
       where s.participant_id = f.p and s.team_id = f.t and s.metric_key = f.m and s.day = f.d
         and f.readings = 0
      returning 1
    ),
    saved as (
      insert into device_reading_days as s (participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at)
      select p, t, m, d, readings, minutes, value_sum, first_at, last_at from fresh where readings > 0
      on conflict (participant_id, team_id, metric_key, day) do update set
        readings = excluded.readings,
        minutes = excluded.minutes,
        value_sum = excluded.value_sum,
        first_at = excluded.first_at,
        last_at = excluded.last_at
      where (s.readings, s.minutes, s.value_sum, s.first_at, s.last_at)
        is distinct from (excluded.readings, excluded.minutes, excluded.value_sum, excluded.first_at, excluded.last_at)
      returning 1
    )
    select (select count(*) from emptied) as emptied, (select count(*) from saved) as saved`;
}

/**
 * The summary keys whose counted readings overlap [from, to) on `recorded_at`: the days a
 * dropped month partition held (retention purge), to refresh after the drop.
 */
export async function readingDaysOverlapping(
  tx: DbOrTx,
  from: Date,
  to: Date,
): Promise<ReadingDayKey[]> {
  const result = await tx.execute<{ p: number; t: number; m: string; d: string }>(sql`
    select participant_id as p, team_id as t, metric_key as m, to_char(day, 'YYYY-MM-DD') as d
      from device_reading_days
     where first_at < ${to.toISOString()}::timestamptz and last_at >= ${from.toISOString()}::timestamptz`);
  return result.rows.map((row) => ({
    participantId: Number(row.p),
    teamId: Number(row.t),
    metricKey: row.m,
    day: row.d,
  }));
}

/**
 * The summary computed from scratch over every stored reading, in the table's shape (the
 * migration's backfill runs the same SELECT). Tests compare the maintained table with it.
 */
export function readingDaysFromScratch(): SQL {
  return sql`
    select participant_id, team_id, metric_key, day,
           count(*)::int as readings,
           count(distinct floor(date_part('epoch', recorded_at) / 60))::int as minutes,
           sum(value) as value_sum,
           min(recorded_at) as first_at,
           max(recorded_at) as last_at
      from (select r.*, ${readingDay('r')} as day from stored_readings r) r
     where recorded_at >= (day::timestamp at time zone 'UTC') - ${sql.raw(BEFORE_DAY)}
       and recorded_at < (day::timestamp at time zone 'UTC') + ${sql.raw(AFTER_DAY)}
     group by participant_id, team_id, metric_key, day`;
}

/**
 * Rebuilds the whole summary from the stored readings (what migration 0011 did once). For
 * readings written around the write path — the bench's generated fixture; never needed by
 * the application, whose every write of readings goes through `refreshReadingDays`.
 */
export async function rebuildReadingDays(db: Db): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.execute(sql`delete from device_reading_days`);
    await tx.execute(sql`
      insert into device_reading_days (participant_id, team_id, metric_key, day, readings, minutes, value_sum, first_at, last_at)
      ${readingDaysFromScratch()}`);
    await tx.execute(sql`analyze device_reading_days`);
  });
}

const GRID_METRICS = sql`('heart_rate', 'steps', 'sleep_duration', 'systolic', 'weight', 'egv')`;

/**
 * Per participant and civil day in [fromDay, toDay] (inclusive), from the summary table:
 * at most one row per participant, metric and day is read, never a reading. Wear minutes
 * are the heart-rate day's distinct minutes; steps and sleep the day's sums (null without
 * any); blood pressure counts systolic readings. Days without any of these are absent.
 */
export async function dailySummaries(
  db: Db,
  teamId: number,
  participantIds: readonly number[],
  fromIso: string,
  toIso: string,
): Promise<DailySummary[]> {
  if (participantIds.length === 0) return [];
  const ids = sql.raw(participantIds.map((id) => String(Math.trunc(id))).join(','));
  const result = await db.execute(sql`
    SELECT participant_id AS "participantId",
           to_char(day, 'YYYY-MM-DD') AS "day",
           coalesce(sum(minutes) FILTER (WHERE metric_key = 'heart_rate'), 0)::int AS "wearMinutes",
           sum(value_sum) FILTER (WHERE metric_key = 'steps') AS "steps",
           sum(value_sum) FILTER (WHERE metric_key = 'sleep_duration') AS "sleepMinutes",
           coalesce(sum(readings) FILTER (WHERE metric_key = 'systolic'), 0)::int AS "bpReadings",
           coalesce(sum(readings) FILTER (WHERE metric_key = 'weight'), 0)::int AS "weightReadings",
           coalesce(sum(readings) FILTER (WHERE metric_key = 'egv'), 0)::int AS "cgmReadings"
      FROM device_reading_days
     WHERE team_id = ${teamId}
       AND participant_id IN (${ids})
       AND metric_key IN ${GRID_METRICS}
       AND day BETWEEN ${fromIso}::date AND ${toIso}::date
     GROUP BY participant_id, day
     ORDER BY participant_id, day`);
  return result.rows.map(toDailySummary);
}

/** Local days can start up to 14 h before and end up to 12 h after the UTC day (UTC−12…UTC+14). */
const MARGIN_BEFORE = "interval '14 hours'";
const MARGIN_AFTER = "interval '36 hours'";

/**
 * The same figures computed from the raw readings with one GROUP BY (how the grid was built
 * before the summary table): the reference the tests compare the summary with, and the
 * bench's "before". The time filter on `recorded_at` reads only the range's partitions.
 */
export async function dailySummariesFromReadings(
  db: Db,
  teamId: number,
  participantIds: readonly number[],
  fromIso: string,
  toIso: string,
): Promise<DailySummary[]> {
  if (participantIds.length === 0) return [];
  const ids = sql.raw(participantIds.map((id) => String(Math.trunc(id))).join(','));
  const dayNumber = (day: string) => Date.parse(`${day}T00:00:00Z`) / 86_400_000;
  const fromDay = dayNumber(fromIso);
  const toDay = dayNumber(toIso);
  // The sort behind count(DISTINCT minute) gets memory enough not to spill.
  const result = await db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL work_mem = '64MB'`);
    return tx.execute(sql`
    SELECT participant_id AS "participantId",
           to_char(date '1970-01-01' + day_number::int, 'YYYY-MM-DD') AS "day",
           count(DISTINCT minute) FILTER (WHERE metric_key = 'heart_rate')::int AS "wearMinutes",
           sum(value) FILTER (WHERE metric_key = 'steps') AS "steps",
           sum(value) FILTER (WHERE metric_key = 'sleep_duration') AS "sleepMinutes",
           count(*) FILTER (WHERE metric_key = 'systolic')::int AS "bpReadings",
           count(*) FILTER (WHERE metric_key = 'weight')::int AS "weightReadings",
           count(*) FILTER (WHERE metric_key = 'egv')::int AS "cgmReadings"
      FROM (
        SELECT participant_id, metric_key, value,
               floor((date_part('epoch', coalesce(end_at, recorded_at)) + coalesce(utc_offset_minutes, 0) * 60) / 86400)::int AS day_number,
               floor(date_part('epoch', recorded_at) / 60)::int AS minute
          FROM stored_readings
         WHERE team_id = ${teamId}
           AND participant_id IN (${ids})
           AND metric_key IN ${GRID_METRICS}
           AND recorded_at >= ${fromIso}::date - ${sql.raw(MARGIN_BEFORE)}
           AND recorded_at < ${toIso}::date + ${sql.raw(MARGIN_AFTER)}
      ) readings
     WHERE day_number BETWEEN ${fromDay} AND ${toDay}
     GROUP BY participant_id, day_number
     ORDER BY participant_id, day_number`);
  });
  return result.rows.map(toDailySummary);
}

function toDailySummary(row: Record<string, unknown>): DailySummary {
  return {
    participantId: Number(row.participantId),
    day: String(row.day),
    wearMinutes: Number(row.wearMinutes),
    steps: row.steps === null ? null : Number(row.steps),
    sleepMinutes: row.sleepMinutes === null ? null : Number(row.sleepMinutes),
    bpReadings: Number(row.bpReadings),
    weightReadings: Number(row.weightReadings),
    cgmReadings: Number(row.cgmReadings),
  };
}

/**
 * Each participant's current UTC offset at `at` (issue 28, decision 0180): the offset of
 * their latest reading up to `at` that carries one, looked up through the day summary
 * (the last reading of each metric's day; days from 30 days before `at`), so it costs a
 * few index probes per participant, never a scan of their heart rate. Participants
 * without such a reading are absent (their days are UTC dates).
 */
export async function currentOffsets(
  db: Db,
  teamId: number,
  participantIds: readonly number[],
  at: Date,
): Promise<Map<number, number>> {
  if (participantIds.length === 0) return new Map();
  const ids = `{${participantIds.map((id) => String(Math.trunc(id))).join(',')}}`;
  // The days newest first, each day's last reading's offset probed until one has one.
  const result = await db.execute<{ p: number; o: number | null }>(sql`
    select p.id as p, (
      select x.o from (
        select ${offsetOfReadingAt('d', 'last_at')} as o
          from device_reading_days d
         where d.participant_id = p.id and d.team_id = ${teamId}
           and d.day >= (${at.toISOString()}::timestamptz - interval '31 days')::date
           and d.last_at <= ${at.toISOString()}::timestamptz
         order by d.last_at desc) x
       where x.o is not null
       limit 1) as o
      from unnest(${ids}::int[]) as p(id)`);
  const offsets = new Map<number, number>();
  for (const row of result.rows) if (row.o !== null) offsets.set(Number(row.p), Number(row.o));
  return offsets;
}

/**
 * The UTC offset of a reading at the instant `day.column` of a day-summary row `day` (its
 * participant, team and metric): a scalar subquery that probes each store by its keys, a row
 * of `device_readings` by its primary key (the partition pruned at run time), else the one
 * chunk that holds the instant, unnested alone. Not through the `stored_readings` view: with
 * the instant an outer column, PostgreSQL joined the view by participant only and filtered
 * the instants afterwards (every reading of the participant, per day: 9–20 s for the six
 * demo participants on PGlite, which the trial page's completeness strips call twice).
 */
function offsetOfReadingAt(day: string, column: 'first_at' | 'last_at'): SQL {
  const at = sql.raw(`${day}.${column}`);
  const keys = (store: string) =>
    sql.raw(
      `${store}.participant_id = ${day}.participant_id and ${store}.team_id = ${day}.team_id and ${store}.metric_key = ${day}.metric_key`,
    );
  return sql`coalesce(
    (select r.utc_offset_minutes from device_readings r
      where ${keys('r')} and r.recorded_at = ${at} and r.utc_offset_minutes is not null
      limit 1),
    (select u.o from device_reading_chunks c
       cross join lateral (
         select u.o, c.period_start + (sum(u.s) over (order by u.n)) * interval '1 millisecond' as at
           from unnest(c.steps_ms, c.utc_offset_minutes) with ordinality as u(s, o, n)) u
      where ${keys('c')} and c.period_start <= ${at}
        and c.period_start > ${at} - ${sql.raw(`interval '${CHUNK_PERIOD_MAX_MS} milliseconds'`)}
        and c.last_at >= ${at} and u.at = ${at} and u.o is not null
      limit 1))`;
}

/** The first local day a participant has readings of a metric (the day summary's earliest row). */
export type FirstDataDay = { participantId: number; metricKey: string; day: string };

/**
 * Per participant and metric of `metricKeys`, the first local day with readings: where the
 * completeness grid's expectation of a brand starts when the connection that brought them
 * is newer (a re-link, a demo restart; decision 0181). One index probe per key.
 */
export async function firstDataDays(
  db: Db,
  teamId: number,
  participantIds: readonly number[],
  metricKeys: readonly string[],
): Promise<FirstDataDay[]> {
  if (participantIds.length === 0 || metricKeys.length === 0) return [];
  const ids = `{${participantIds.map((id) => String(Math.trunc(id))).join(',')}}`;
  const result = await db.execute<{ p: number; m: string; d: string }>(sql`
    select participant_id as p, metric_key as m, to_char(min(day), 'YYYY-MM-DD') as d
      from device_reading_days
     where team_id = ${teamId} and participant_id = any(${ids}::int[])
       and metric_key = any(${`{${metricKeys.join(',')}}`}::text[])
     group by participant_id, metric_key`);
  return result.rows.map((row) => ({
    participantId: Number(row.p),
    metricKey: row.m,
    day: row.d,
  }));
}

/** The UTC offsets a participant's local day began and ended with (its first and last reading that has one). */
export type DayOffset = { day: string; start: number; end: number };

/**
 * Per local day in [fromDay, toDay] with readings that carry an offset: the offsets of the
 * day's first and last such reading (a day the clocks change has two). Exports write a
 * daily value's interval with them (decision 0182). Read through the day summary: a few
 * index probes per day.
 */
export async function dayOffsets(
  db: Db,
  teamId: number,
  participantId: number,
  fromDay: string,
  toDay: string,
): Promise<DayOffset[]> {
  const result = await db.execute<{
    d: string;
    first_at: string;
    last_at: string;
    s: number | null;
    e: number | null;
  }>(sql`
    select to_char(d.day, 'YYYY-MM-DD') as d, d.first_at, d.last_at,
           ${offsetOfReadingAt('d', 'first_at')} as s, ${offsetOfReadingAt('d', 'last_at')} as e
      from device_reading_days d
     where d.participant_id = ${participantId} and d.team_id = ${teamId}
       and d.day between ${fromDay}::date and ${toDay}::date`);
  const days = new Map<string, { start: number; startAt: number; end: number; endAt: number }>();
  for (const row of result.rows) {
    if (row.s === null || row.e === null) continue;
    const startAt = new Date(row.first_at).getTime();
    const endAt = new Date(row.last_at).getTime();
    const known = days.get(row.d);
    if (!known) {
      days.set(row.d, { start: Number(row.s), startAt, end: Number(row.e), endAt });
      continue;
    }
    if (startAt < known.startAt) Object.assign(known, { start: Number(row.s), startAt });
    if (endAt > known.endAt) Object.assign(known, { end: Number(row.e), endAt });
  }
  return [...days.entries()]
    .map(([day, { start, end }]) => ({ day, start, end }))
    .sort((a, b) => (a.day < b.day ? -1 : 1));
}
