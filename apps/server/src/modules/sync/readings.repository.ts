import { and, asc, eq, gt, inArray, lte, sql, type SQL } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  type deviceReadings,
  deviceReadingTotals,
  storedReadings,
  type DeviceBrand,
  type ReadingUpstream,
} from '../../db/schema';
import { readingDay, type ReadingDayKey } from './daily-summary';
import { storedReadingsWithin } from './stored-readings';
import { executePreparedByText } from '../../db/prepared-by-text';
import type { MirrorRange } from './sources/types';

/** One reading to store; values in the metric catalog's units (see db/schema/sync.ts). */
export type ReadingInput = {
  participantId: number;
  teamId: number;
  brand: DeviceBrand;
  metricKey: string;
  recordedAt: Date;
  endAt?: Date | null;
  utcOffsetMinutes?: number | null;
  value?: number | null;
  valueJson?: unknown;
  upstream: ReadingUpstream;
  dataSource?: string | null;
};

export type StoredReading = typeof deviceReadings.$inferSelect;

/** A stored reading's columns on `stored_readings` (rows and chunk points alike). */
const READING_COLUMNS = {
  participantId: storedReadings.participantId,
  teamId: storedReadings.teamId,
  metricKey: storedReadings.metricKey,
  recordedAt: storedReadings.recordedAt,
  brand: storedReadings.brand,
  endAt: storedReadings.endAt,
  utcOffsetMinutes: storedReadings.utcOffsetMinutes,
  value: storedReadings.value,
  valueJson: storedReadings.valueJson,
  upstream: storedReadings.upstream,
  dataSource: storedReadings.dataSource,
  syncRunId: storedReadings.syncRunId,
  syncedAt: storedReadings.syncedAt,
};

/** A row of `stored_readings` as both drivers hand it over (timestamps as text, drizzle's parsers). */
type StoredReadingRow = {
  participant_id: number | string;
  team_id: number | string;
  metric_key: string;
  recorded_at: string | Date;
  brand: DeviceBrand;
  end_at: string | Date | null;
  utc_offset_minutes: number | string | null;
  value: number | string | null;
  value_json: unknown;
  upstream: ReadingUpstream;
  data_source: string | null;
  sync_run_id: number | string | null;
  synced_at: string | Date;
};

/**
 * The rows a chunk may hold (decision 0255, 0270): a sync stored them, without an end, their
 * value finite or absent (NaN and ±Infinity stay rows, as `splitForChunks` leaves them).
 */
const CHUNKABLE_ROW = sql.raw(
  `sync_run_id is not null and end_at is null and (value is null or value not in ('NaN', 'Infinity', '-Infinity'))`,
);

/** A row's JSON (parsed by both drivers) as a chunk point holds it: absent when null. */
function jsonOf(json: unknown): { json?: unknown } {
  return json === null || json === undefined ? {} : { json };
}

const instantOf = (value: string | Date) => (typeof value === 'string' ? new Date(value) : value);
const numberOf = (value: number | string) => (typeof value === 'string' ? Number(value) : value);

/**
 * A row of READING_COLUMNS as drizzle's column decoders would give it (the same rules:
 * timestamptz text → Date, numeric text → number, jsonb text → parsed). By hand because
 * `read` maps up to ~90,000 rows for one day of 1-second heart rate, and drizzle's mapping of
 * a view's columns (a proxy lookup and an entity check per field and row) was the largest
 * share of the one-day data call (decision 0260).
 */
function toStoredReading(row: StoredReadingRow): StoredReading {
  let valueJson = row.value_json;
  if (typeof valueJson === 'string') {
    try {
      valueJson = JSON.parse(valueJson);
    } catch {
      // drizzle's jsonb decoder keeps text it cannot parse as it is
    }
  }
  return {
    participantId: numberOf(row.participant_id),
    teamId: numberOf(row.team_id),
    metricKey: row.metric_key,
    recordedAt: instantOf(row.recorded_at),
    brand: row.brand,
    endAt: row.end_at === null ? null : instantOf(row.end_at),
    utcOffsetMinutes: row.utc_offset_minutes === null ? null : numberOf(row.utc_offset_minutes),
    value: row.value === null ? null : numberOf(row.value),
    valueJson,
    upstream: row.upstream,
    dataSource: row.data_source,
    syncRunId: row.sync_run_id === null ? null : numberOf(row.sync_run_id),
    syncedAt: instantOf(row.synced_at),
  };
}

export type ReadingsQuery = {
  teamId: number;
  participantId: number;
  /** Omitted: every metric. */
  metricKeys?: readonly string[];
  /** Omitted: every brand. */
  brand?: DeviceBrand;
  /** Inclusive. */
  from: Date;
  /** Exclusive. */
  to: Date;
  /**
   * Only readings whose local civil day (decision 0180: instant or session end plus its
   * offset) lies in [start, end]; `from` / `to` must reach 14 h before the first day (38 h
   * for sessions) and 12 h after the last. Exports use it (decision 0182).
   */
  localDays?: { start: string; end: string };
  /**
   * Only readings stored or changed (`synced_at`) in (after, until]: a FHIR Bulk Data
   * export's `_since` and transaction time (decision 0245). A chunk's points share its time.
   */
  synced?: { after: Date | null; until: Date };
};

export type UpsertCounts = { inserted: number; updated: number };

/** Rows per statement of the write path; the service splits larger inputs. */
export const UPSERT_BATCH_SIZE = 5_000;

/** The longest session the mirror of a session stream looks back for (by its start). */
const SESSION_MAX_DAYS = 7;

/** One calendar month (UTC) per partition; the first instant of each month a batch touches. */
export function monthsOf(instants: Iterable<Date>): Date[] {
  const months = new Set<number>();
  for (const instant of instants) {
    months.add(Date.UTC(instant.getUTCFullYear(), instant.getUTCMonth(), 1));
  }
  return [...months].sort((a, b) => a - b).map((ms) => new Date(ms));
}

/**
 * The only code that touches `device_readings`. The write path is one statement per batch:
 * the batch travels as one JSON parameter that `json_to_recordset` turns into the staging
 * relation, and one `INSERT … SELECT … ON CONFLICT DO UPDATE` merges it (decision 0035).
 * Unchanged rows are not rewritten, so re-syncing a window writes nothing.
 */
export function createReadingsRepository(db: Db) {
  /** Months whose partition this process has already seen to exist. */
  const knownMonths = new Set<number>();

  return {
    db,
    transaction: db.transaction.bind(db),

    /**
     * Creates the monthly partitions the instants fall in, when missing. Runs in its own
     * short transaction (never inside the caller's: on PGlite that would wait on itself),
     * so call it before opening the transaction that writes.
     */
    async ensurePartitions(instants: Iterable<Date>): Promise<void> {
      const missing = monthsOf(instants).filter((month) => !knownMonths.has(month.getTime()));
      if (missing.length === 0) return;
      // One call per run of consecutive months: a backfill over a year is one call.
      for (const [first, last] of consecutiveRuns(missing)) {
        await db.execute(
          sql`select device_readings_ensure_partitions(${first.toISOString()}::timestamptz, ${last.toISOString()}::timestamptz)`,
        );
        for (let month = first; month <= last; month = nextMonth(month))
          knownMonths.add(month.getTime());
      }
    },

    /** Forgets the partitions seen (after the purge dropped some). */
    forgetPartitions(): void {
      knownMonths.clear();
    },

    /**
     * Merges at most UPSERT_BATCH_SIZE rows in one statement. Rows must be unique on the
     * key (the service de-duplicates) and their partitions must exist (`ensurePartitions`).
     */
    async upsertBatch(
      tx: DbOrTx,
      rows: readonly ReadingInput[],
      syncRunId: number | null,
    ): Promise<UpsertCounts & { touched: ReadingDayKey[] }> {
      if (rows.length === 0) return { inserted: 0, updated: 0, touched: [] };
      const payload = JSON.stringify(
        rows.map((row) => ({
          p: row.participantId,
          t: row.teamId,
          m: row.metricKey,
          at: row.recordedAt.toISOString(),
          b: row.brand,
          e: row.endAt ? row.endAt.toISOString() : null,
          o: row.utcOffsetMinutes ?? null,
          v: row.value ?? null,
          j: row.valueJson ?? null,
          u: row.upstream,
          s: row.dataSource ?? null,
        })),
      );
      // The batch's own span bounds `existing` with constants, so the planner keeps only its
      // partitions (decision 0200) rather than costing the JSON's guessed 100 keys over all.
      let first = Infinity;
      let last = -Infinity;
      for (const row of rows) {
        const at = row.recordedAt.getTime();
        if (at < first) first = at;
        if (at > last) last = at;
      }
      // `existing` and `written` see the same snapshot, so existing = keys already stored
      // before this statement; RETURNING xmax is not allowed on a partitioned table.
      // `touched` (decision 0058): the local days of the rows written, and the days a changed
      // row counted on before (its offset or end may have moved it), for the day summary.
      const result = await tx.execute<{
        existing: number;
        written: number;
        touched: [number, number, string, string][];
      }>(sql`
        with input as (
          select * from json_to_recordset(${payload}::json) as r(
            p integer, t integer, m text, at timestamptz, b device_brand, e timestamptz,
            o smallint, v double precision, j jsonb, u text, s text
          )
        ),
        existing as (
          select r.p, r.t, r.m, r.at, r.b, ${readingDay('d')} as day from input r
          join device_readings d
            on d.participant_id = r.p and d.team_id = r.t and d.metric_key = r.m
           and d.recorded_at = r.at and d.brand = r.b
           and d.recorded_at >= ${new Date(first).toISOString()}::timestamptz
           and d.recorded_at <= ${new Date(last).toISOString()}::timestamptz
        ),
        written as (
          insert into device_readings as d (
            participant_id, team_id, metric_key, recorded_at, brand, end_at, utc_offset_minutes,
            value, value_json, upstream, data_source, sync_run_id, synced_at
          )
          select r.p, r.t, r.m, r.at, r.b, r.e, r.o, r.v, r.j, r.u, r.s, ${syncRunId}::bigint, now()
          from input r
          on conflict (participant_id, team_id, metric_key, recorded_at, brand) do update set
            end_at = excluded.end_at,
            utc_offset_minutes = excluded.utc_offset_minutes,
            value = excluded.value,
            value_json = excluded.value_json,
            upstream = excluded.upstream,
            data_source = excluded.data_source,
            sync_run_id = excluded.sync_run_id,
            synced_at = excluded.synced_at
          where (d.end_at, d.utc_offset_minutes, d.value, d.value_json, d.upstream, d.data_source)
            is distinct from
            (excluded.end_at, excluded.utc_offset_minutes, excluded.value, excluded.value_json, excluded.upstream, excluded.data_source)
          returning d.participant_id as p, d.team_id as t, d.metric_key as m, d.recorded_at as at, d.brand as b, ${readingDay('d')} as day
        ),
        touched as (
          select p, t, m, day from written
          union
          select e.p, e.t, e.m, e.day from existing e join written w using (p, t, m, at, b)
        )
        select (select count(*)::int from existing) as existing, (select count(*)::int from written) as written,
               (select coalesce(json_agg(json_build_array(p, t, m, to_char(day, 'YYYY-MM-DD'))), '[]') from touched) as touched`);
      const counts = result.rows[0];
      const existing = Number(counts?.existing ?? 0);
      const written = Number(counts?.written ?? 0);
      // Clamped: a concurrent writer of the same keys can skew the snapshot's arithmetic.
      const inserted = Math.max(0, rows.length - existing);
      const touched = (counts?.touched ?? []).map(([participantId, teamId, metricKey, day]) => ({
        participantId: Number(participantId),
        teamId: Number(teamId),
        metricKey,
        day,
      }));
      return { inserted, updated: Math.max(0, written - inserted), touched };
    },

    /**
     * The mirror of a fetched window (decision 0112): deletes the stored readings of one
     * participant, team, brand and `metricKeys` whose `range.on` lies in [range.from,
     * range.to) and whose (metric, recorded_at) is not among `keep` — what the provider's
     * complete answer for the window no longer holds. Only readings a sync stored (a
     * `sync_run_id`) are the provider's copy to withdraw; readings that came another way (the
     * demo seed) are kept. Returns how many were deleted and the days they counted on, for the
     * day summary.
     */
    async deleteAbsent(
      tx: DbOrTx,
      scope: {
        participantId: number;
        teamId: number;
        brand: DeviceBrand;
        metricKeys: readonly string[];
        range: MirrorRange;
      },
      keep: ReadonlyArray<Pick<ReadingInput, 'metricKey' | 'recordedAt'>>,
    ): Promise<{ deleted: number; touched: ReadingDayKey[] }> {
      if (scope.metricKeys.length === 0 || scope.range.from >= scope.range.to)
        return { deleted: 0, touched: [] };
      const from = scope.range.from.toISOString();
      const to = scope.range.to.toISOString();
      // Sessions count by their end; the start bound only lets the planner prune partitions
      // (a session longer than SESSION_MAX_DAYS is left alone, never wrongly deleted).
      const inRange =
        scope.range.on === 'recorded_at'
          ? sql`d.recorded_at >= ${from}::timestamptz and d.recorded_at < ${to}::timestamptz`
          : sql`coalesce(d.end_at, d.recorded_at) >= ${from}::timestamptz and coalesce(d.end_at, d.recorded_at) < ${to}::timestamptz
                and d.recorded_at >= ${from}::timestamptz - ${sql.raw(`interval '${SESSION_MAX_DAYS} days'`)} and d.recorded_at < ${to}::timestamptz`;
      const metrics = new Set(scope.metricKeys);
      const payload = JSON.stringify(
        keep
          .filter((row) => metrics.has(row.metricKey))
          .map((row) => ({ m: row.metricKey, at: row.recordedAt.toISOString() })),
      );
      // NOT IN over the kept keys: a hashed subplan, whatever the planner guesses of the
      // JSON's row count (NOT EXISTS let it pick a nested loop: rows × keys comparisons).
      const result = await tx.execute<{ deleted: number; touched: [string, string][] }>(sql`
        with gone as (
          delete from device_readings d
           where d.participant_id = ${scope.participantId} and d.team_id = ${scope.teamId}
             and d.brand = ${scope.brand}::device_brand
             and d.metric_key in (${sql.join(
               scope.metricKeys.map((key) => sql`${key}`),
               sql`, `,
             )})
             and ${inRange}
             and d.sync_run_id is not null
             and (d.metric_key, d.recorded_at) not in (
               select k.m, k.at from json_to_recordset(${payload}::json) as k(m text, at timestamptz)
             )
          returning d.metric_key as m, ${readingDay('d')} as day
        )
        select (select count(*)::int from gone) as deleted,
               (select coalesce(json_agg(json_build_array(g.m, to_char(g.day, 'YYYY-MM-DD'))), '[]')
                  from (select distinct m, day from gone) g) as touched`);
      const row = result.rows[0];
      return {
        deleted: Number(row?.deleted ?? 0),
        touched: (row?.touched ?? []).map(([metricKey, day]) => ({
          participantId: scope.participantId,
          teamId: scope.teamId,
          metricKey,
          day,
        })),
      };
    },

    /**
     * Deletes and returns the rows of one stream at `instants` (ms): the keys a chunk takes
     * over (decision 0255: a key lives in one store), with their JSON. `hasExtra`: the row
     * had an end, which a chunk point has not.
     */
    async takeRows(
      tx: DbOrTx,
      stream: { participantId: number; teamId: number; metricKey: string; brand: DeviceBrand },
      instants: readonly number[],
    ): Promise<
      {
        at: number;
        value: number | null;
        offset: number | null;
        json?: unknown;
        upstream: ReadingUpstream;
        dataSource: string | null;
        hasExtra: boolean;
      }[]
    > {
      if (instants.length === 0) return [];
      let first = Infinity;
      let last = -Infinity;
      for (const at of instants) {
        if (at < first) first = at;
        if (at > last) last = at;
      }
      const list = `{${instants.map((at) => `"${new Date(at).toISOString()}"`).join(',')}}`;
      const result = await tx.execute<{
        at: string | Date;
        value: number | null;
        offset: number | null;
        value_json: unknown;
        upstream: ReadingUpstream;
        data_source: string | null;
        extra: boolean;
      }>(sql`
        delete from device_readings d
         where d.participant_id = ${stream.participantId} and d.team_id = ${stream.teamId}
           and d.metric_key = ${stream.metricKey} and d.brand = ${stream.brand}::device_brand
           and d.recorded_at >= ${new Date(first).toISOString()}::timestamptz
           and d.recorded_at <= ${new Date(last).toISOString()}::timestamptz
           and d.recorded_at = any(${list}::timestamptz[])
        returning d.recorded_at as at, d.value, d.utc_offset_minutes as offset, d.value_json,
                  d.upstream, d.data_source, d.end_at is not null as extra`);
      return result.rows.map((row) => ({
        at: new Date(row.at).getTime(),
        value: row.value === null ? null : Number(row.value),
        offset: row.offset === null ? null : Number(row.offset),
        ...jsonOf(row.value_json),
        upstream: row.upstream,
        dataSource: row.data_source,
        hasExtra: Boolean(row.extra),
      }));
    },

    /**
     * The streams of `metricKeys` that have rows a chunk could hold (a sync stored them,
     * without an end, a value finite or absent): what the migration of stored rows walks
     * (decision 0255). One scan of those metrics' rows.
     */
    async chunkableStreams(
      metricKeys: readonly string[],
    ): Promise<{ participantId: number; teamId: number; metricKey: string; brand: DeviceBrand }[]> {
      if (metricKeys.length === 0) return [];
      const result = await db.execute<{ p: number; t: number; m: string; b: DeviceBrand }>(sql`
        select distinct participant_id as p, team_id as t, metric_key as m, brand as b
          from device_readings
         where metric_key in (${sql.join(
           metricKeys.map((key) => sql`${key}`),
           sql`, `,
         )})
           and ${CHUNKABLE_ROW}
         order by 1, 2, 3, 4`);
      return result.rows.map((row) => ({
        participantId: Number(row.p),
        teamId: Number(row.t),
        metricKey: row.m,
        brand: row.b,
      }));
    },

    /**
     * Up to `limit` chunkable rows of one stream from `from` (ms) on, in time order, with
     * their provenance (the migration's batch), or every such row in [from, to) without a
     * limit.
     */
    async chunkableRows(
      tx: DbOrTx,
      stream: { participantId: number; teamId: number; metricKey: string; brand: DeviceBrand },
      range: { from: number; limit: number } | { from: number; to: number },
    ): Promise<
      {
        at: number;
        value: number | null;
        offset: number | null;
        json?: unknown;
        upstream: ReadingUpstream;
        dataSource: string | null;
        syncRunId: number;
        syncedAt: Date;
      }[]
    > {
      const result = await tx.execute<{
        at: string | Date;
        value: number | null;
        offset: number | null;
        value_json: unknown;
        upstream: ReadingUpstream;
        data_source: string | null;
        sync_run_id: number | string;
        synced_at: string | Date;
      }>(sql`
        select recorded_at as at, value, utc_offset_minutes as offset, value_json, upstream,
               data_source, sync_run_id, synced_at
          from device_readings
         where participant_id = ${stream.participantId} and team_id = ${stream.teamId}
           and metric_key = ${stream.metricKey} and brand = ${stream.brand}::device_brand
           and recorded_at >= ${new Date(range.from).toISOString()}::timestamptz
           ${'to' in range ? sql`and recorded_at < ${new Date(range.to).toISOString()}::timestamptz` : sql``}
           and ${CHUNKABLE_ROW}
         order by recorded_at
         ${'limit' in range ? sql`limit ${range.limit}` : sql``}`);
      return result.rows.map((row) => ({
        at: new Date(row.at).getTime(),
        value: row.value === null ? null : Number(row.value),
        offset: row.offset === null ? null : Number(row.offset),
        ...jsonOf(row.value_json),
        upstream: row.upstream,
        dataSource: row.data_source,
        syncRunId: Number(row.sync_run_id),
        syncedAt: new Date(row.synced_at),
      }));
    },

    /** How many readings a participant has (in the caller's transaction). */
    async countOfParticipant(q: DbOrTx, teamId: number, participantId: number): Promise<number> {
      // The totals the database keeps per metric and brand (decision 0257).
      const result = await q.execute<{ n: number }>(sql`
        select coalesce(sum(readings), 0)::bigint as n from device_reading_totals
         where participant_id = ${participantId} and team_id = ${teamId}`);
      return Number(result.rows[0]?.n ?? 0);
    },

    /** Readings of a participant in [from, to), by metric then time; at most `limit` rows. */
    async read(
      query: ReadingsQuery,
      options: { limit?: number; after?: ReadingKey } = {},
    ): Promise<StoredReading[]> {
      if (query.metricKeys?.length === 0) return [];
      // Local days: only the instants the day summary says their readings lie between
      // (decision 0255): a local day's hours, not the ±14 h margin of every offset.
      const span = query.localDays ? await localDaysSpan(db, query, query.localDays) : query;
      if (!span) return [];
      const conditions: SQL[] = [
        eq(storedReadings.participantId, query.participantId),
        eq(storedReadings.teamId, query.teamId),
        storedReadingsWithin('stored_readings', span.from, span.to),
      ];
      if (query.metricKeys) {
        conditions.push(inArray(storedReadings.metricKey, [...query.metricKeys]));
      }
      if (query.brand) conditions.push(eq(storedReadings.brand, query.brand));
      if (query.synced) {
        conditions.push(lte(storedReadings.syncedAt, query.synced.until));
        if (query.synced.after) conditions.push(gt(storedReadings.syncedAt, query.synced.after));
      }
      if (query.localDays)
        conditions.push(
          sql`${readingDay('stored_readings')} between ${query.localDays.start}::date and ${query.localDays.end}::date`,
        );
      const after = options.after;
      if (after) {
        // Keyset position: a row comparison in the primary key's order after its prefix.
        conditions.push(
          sql`(${storedReadings.metricKey}, ${storedReadings.recordedAt}, ${storedReadings.brand}) > (${after.metricKey}, ${after.recordedAt.toISOString()}::timestamptz, ${after.brand}::device_brand)`,
        );
      }
      const statement = db
        .select(READING_COLUMNS)
        .from(storedReadings)
        .where(and(...conditions))
        .orderBy(
          asc(storedReadings.metricKey),
          asc(storedReadings.recordedAt),
          asc(storedReadings.brand),
        );
      const result = await db.execute<StoredReadingRow>(
        options.limit ? statement.limit(options.limit) : statement,
      );
      return result.rows.map(toStoredReading);
    },

    /**
     * The metrics of a query that have readings in its range, in the database's order of
     * `metric_key` (what `read` orders by): rows and chunks looked up apart, no chunk
     * unnested.
     */
    async metricsIn(query: ReadingsQuery): Promise<string[]> {
      if (query.metricKeys?.length === 0) return [];
      const scope = sql`participant_id = ${query.participantId} and team_id = ${query.teamId}
        ${query.brand ? sql`and brand = ${query.brand}::device_brand` : sql``}
        ${
          query.metricKeys
            ? sql`and metric_key in (${sql.join(
                query.metricKeys.map((key) => sql`${key}`),
                sql`, `,
              )})`
            : sql``
        }`;
      const from = query.from.toISOString();
      const to = query.to.toISOString();
      const result = await db.execute<{ metric_key: string }>(sql`
        select metric_key from (
          select distinct metric_key from device_readings
           where ${scope} and recorded_at >= ${from}::timestamptz and recorded_at < ${to}::timestamptz
          union
          select distinct metric_key from device_reading_chunks
           where ${scope} and period_start < ${to}::timestamptz and last_at >= ${from}::timestamptz
        ) m
         order by metric_key`);
      return result.rows.map((row) => row.metric_key);
    },

    /**
     * The chunks of a one-metric query's range in time order, each with its number of
     * points, read from the chunks' own columns (`iterate`'s slices, decision 0255).
     */
    async chunkSizes(query: ReadingsQuery): Promise<{ periodStart: number; points: number }[]> {
      const result = await db.execute<{ ps: string | Date; n: number }>(sql`
        select period_start as ps, cardinality(steps_ms) as n from device_reading_chunks
         where participant_id = ${query.participantId} and team_id = ${query.teamId}
           ${query.brand ? sql`and brand = ${query.brand}::device_brand` : sql``}
           and metric_key in (${sql.join(
             (query.metricKeys ?? []).map((key) => sql`${key}`),
             sql`, `,
           )})
           and period_start < ${query.to.toISOString()}::timestamptz
           and last_at >= ${query.from.toISOString()}::timestamptz
         order by period_start`);
      return result.rows.map((row) => ({
        periodStart: new Date(row.ps).getTime(),
        points: Number(row.n),
      }));
    },

    /** Per metric (and brand): rows stored, earliest and latest reading. */
    async stats(teamId: number, participantId: number, brand?: DeviceBrand) {
      // The count from the totals the database keeps (decision 0257); the first and last
      // instants by index probes: the first and last row of the key, the first chunk's first
      // point and the last chunk's `last_at` (a stream's periods do not overlap), none
      // unnested. Flat with history: no row or chunk is summed, and the row partitions are
      // probed only for a stream that has rows (`row_readings`; a chunked stream's probes
      // found nothing in every month's partition, one probe more per month of history). A
      // prepared statement: the row probes span every month partition, and planning them
      // cost ~10× running them (5.4 ms against 0.3 ms with 11 partitions), so each
      // connection plans it once.
      const t = deviceReadingTotals;
      const same = (alias: string) =>
        sql`${sql.raw(alias)}.participant_id = ${t.participantId} and ${sql.raw(alias)}.team_id = ${t.teamId}
          and ${sql.raw(alias)}.metric_key = ${t.metricKey} and ${sql.raw(alias)}.brand = ${t.brand}`;
      const rows = await executePreparedByText(
        db
          .select({
            metricKey: t.metricKey,
            brand: t.brand,
            rows: t.readings,
            earliest: sql<string | Date>`least(
              case when ${t.rowReadings} > 0 then
                (select min(r.recorded_at) from device_readings r where ${same('r')}) end,
              (select c.period_start + c.steps_ms[1] * interval '1 millisecond'
                 from device_reading_chunks c where ${same('c')} order by c.period_start limit 1))`,
            latest: sql<string | Date>`greatest(
              case when ${t.rowReadings} > 0 then
                (select max(r.recorded_at) from device_readings r where ${same('r')}) end,
              (select c.last_at from device_reading_chunks c where ${same('c')}
                order by c.period_start desc limit 1))`,
          })
          .from(t)
          .where(
            and(
              eq(t.participantId, participantId),
              eq(t.teamId, teamId),
              brand ? eq(t.brand, brand) : undefined,
              gt(t.readings, 0),
            ),
          )
          .orderBy(asc(t.metricKey), asc(t.brand)),
      );
      return rows.map((row) => ({
        metricKey: row.metricKey,
        brand: row.brand,
        rows: Number(row.rows),
        earliest: new Date(row.earliest),
        latest: new Date(row.latest),
      }));
    },

    /** The latest reading instant per participant of a team and brand (trial page badge). */
    async latestByParticipant(
      teamId: number,
      participantIds: readonly number[],
      brand?: DeviceBrand,
    ): Promise<{ participantId: number; latest: Date }[]> {
      if (participantIds.length === 0) return [];
      const ids = `{${participantIds.map((id) => String(Math.trunc(id))).join(',')}}`;
      const ofBrand = brand ? sql`and brand = ${brand}::device_brand` : sql``;
      // A chunk's last point is its `last_at`: no chunk is unnested (decision 0255).
      const result = await db.execute<{ p: number; latest: string | Date }>(sql`
        select p, max(latest) as latest from (
          select participant_id as p, max(recorded_at) as latest from device_readings
           where participant_id = any(${ids}::int[]) and team_id = ${teamId} ${ofBrand}
           group by participant_id
          union all
          select participant_id, max(last_at) from device_reading_chunks
           where participant_id = any(${ids}::int[]) and team_id = ${teamId} ${ofBrand}
           group by participant_id
        ) s
         group by p`);
      return result.rows.map((row) => ({
        participantId: Number(row.p),
        latest: new Date(row.latest),
      }));
    },
  };
}

/**
 * The instants [from, to) that hold the query's readings of its local days: from the day
 * summary's first and last instant of those days (its metrics, every brand), within the
 * query's own range; null when the summary has no reading there.
 */
async function localDaysSpan(
  db: Db,
  query: ReadingsQuery,
  days: { start: string; end: string },
): Promise<{ from: Date; to: Date } | null> {
  const metrics = query.metricKeys
    ? sql`and metric_key in (${sql.join(
        query.metricKeys.map((key) => sql`${key}`),
        sql`, `,
      )})`
    : sql``;
  const result = await db.execute<{ first: string | null; last: string | null }>(sql`
    select min(first_at) as first, max(last_at) as last from device_reading_days
     where participant_id = ${query.participantId} and team_id = ${query.teamId} ${metrics}
       and day between ${days.start}::date and ${days.end}::date`);
  const row = result.rows[0];
  if (!row?.first || !row.last) return null;
  const from = Math.max(query.from.getTime(), new Date(row.first).getTime());
  const to = Math.min(query.to.getTime(), new Date(row.last).getTime() + 1);
  return from < to ? { from: new Date(from), to: new Date(to) } : null;
}

/** Where a keyset-paged read stopped. */
export type ReadingKey = Pick<StoredReading, 'metricKey' | 'recordedAt' | 'brand'>;

export type ReadingsRepository = ReturnType<typeof createReadingsRepository>;

function nextMonth(month: Date): Date {
  return new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
}

function consecutiveRuns(months: readonly Date[]): [Date, Date][] {
  const runs: [Date, Date][] = [];
  for (const month of months) {
    const run = runs.at(-1);
    if (run && nextMonth(run[1]).getTime() === month.getTime()) run[1] = month;
    else runs.push([month, month]);
  }
  return runs;
}
