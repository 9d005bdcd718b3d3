import { and, asc, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { storedReadings } from '../../db/schema';
import { CHUNK_PERIOD_MS } from './chunk-store';
import { CHUNK_PERIOD_MAX_MS, storedReadingsBefore, storedReadingsFrom } from './stored-readings';
import type { ReadingsListScope } from './readings-reads';

/**
 * A page of the stored-readings table in time order located by position (issue 29, decision
 * 0256), for the table's time orders without a text filter or time range: instead of
 * sorting the whole scope's points to skip `index × size` of them, the page is found from
 * the near end of the order (the start, or for a page past the middle the end, read in the
 * reverse order) by walking the scope's chunks and rows by their instants, each chunk
 * counted by its size (`cardinality(steps_ms)`) without being unnested. Only the chunks
 * of the page's window are unnested and sorted. The readings nearer than the window are
 * counted exactly (rows and whole chunks by their keys, the one chunk that straddles the
 * window's edge unnested), so the page is the one the whole sort would give; when the walk's
 * guess does not hold the page (chunks of two metrics overlapping, many rows), the caller
 * reads the page as before (`null`).
 */

/** The table's columns of a stored reading, as `readings-reads.ts` selects them. */
export const PAGE_COLUMNS = {
  metricKey: storedReadings.metricKey,
  recordedAt: storedReadings.recordedAt,
  endAt: storedReadings.endAt,
  utcOffsetMinutes: storedReadings.utcOffsetMinutes,
  value: storedReadings.value,
  valueJson: storedReadings.valueJson,
  brand: storedReadings.brand,
  upstream: storedReadings.upstream,
  dataSource: storedReadings.dataSource,
  syncRunId: storedReadings.syncRunId,
  syncedAt: storedReadings.syncedAt,
};

/**
 * Units (chunks or rows) the walk reads first; it reads eight times more while short. Small:
 * each chunk read is detoasted for its size, and a first or last page needs one or two.
 */
const FIRST_WALK = 16;
/** Past this many units the walk gives up: the whole sort is as cheap by then. */
const LAST_WALK = 1 << 16;

type Unit = { from: number; to: number; n: number };

/**
 * The page `index` of `size` of the scope in time order (`newestFirst`: recorded_at
 * descending, else ascending; metric key ascending within an instant, as the list orders),
 * given the scope's exact `total`; null when the walk cannot place it.
 */
export async function positionedPage(
  db: Db,
  scope: ReadingsListScope,
  page: { index: number; size: number },
  newestFirst: boolean,
  total: number,
) {
  const skip = page.index * page.size;
  if (skip >= total) return null;
  const take = Math.min(page.size, total - skip);
  // From the nearer end: a page past the middle is read in the reverse order.
  const reversed = skip + take / 2 > total / 2;
  const near = reversed ? total - skip - take : skip;
  // Walking toward older readings (descending) or newer ones.
  const descending = newestFirst !== reversed;
  const need = near + take;

  let units: Unit[] = [];
  let complete = false;
  for (let limit = FIRST_WALK; ; limit *= 8) {
    units = await walk(db, scope, descending, limit);
    complete = units.length < limit;
    if (complete || sum(units) >= need) break;
    if (limit >= LAST_WALK) return null;
  }
  // The unit the page starts in (first whose running sum passes `near`) and the one where
  // it ends (first reaching `need`); no end: the window runs to the far end.
  let running = 0;
  let first = -1;
  let last = -1;
  for (let i = 0; i < units.length; i += 1) {
    running += units[i]!.n;
    if (first === -1 && running > near) first = i;
    if (running >= need) {
      last = i;
      break;
    }
  }
  if (first === -1) return null;
  if (last === -1 && !complete) return null;
  const span = units.slice(first, last === -1 ? undefined : last + 1);
  const through = last === -1 ? units : units.slice(0, last + 1);
  // The window: descending, [start of the last unit, 1 ms past the latest end in the span);
  // ascending, [earliest start in the span, 1 ms past the latest end up to the last unit).
  const nearEdge = descending
    ? Math.max(...span.map((unit) => unit.to)) + 1
    : Math.min(...span.map((unit) => unit.from));
  const farEdge =
    last === -1
      ? undefined
      : descending
        ? Math.min(...through.map((unit) => unit.from))
        : Math.max(...through.map((unit) => unit.to)) + 1;

  const before = await countNearer(db, scope, descending, new Date(nearEdge));
  if (before > near) return null;
  const conditions = [...scopeConditions(scope)];
  if (descending) {
    conditions.push(storedReadingsBefore('stored_readings', new Date(nearEdge)));
    if (farEdge !== undefined)
      conditions.push(storedReadingsFrom('stored_readings', new Date(farEdge)));
  } else {
    conditions.push(storedReadingsFrom('stored_readings', new Date(nearEdge)));
    if (farEdge !== undefined)
      conditions.push(storedReadingsBefore('stored_readings', new Date(farEdge)));
  }
  // The list's order is (time, metric key ascending); read backwards both flip.
  const order = reversed
    ? [
        newestFirst ? asc(storedReadings.recordedAt) : desc(storedReadings.recordedAt),
        desc(storedReadings.metricKey),
      ]
    : [
        newestFirst ? desc(storedReadings.recordedAt) : asc(storedReadings.recordedAt),
        asc(storedReadings.metricKey),
      ];
  const rows = await db
    .select(PAGE_COLUMNS)
    .from(storedReadings)
    .where(and(...conditions))
    .orderBy(...order)
    .limit(take)
    .offset(near - before);
  if (rows.length !== take) return null;
  if (reversed) rows.reverse();
  return { rows: rows.map((row) => ({ ...row, total })), total };
}

/** The scope's conditions on `stored_readings` (participant, team, brand, metrics). */
export function scopeConditions(scope: ReadingsListScope): SQL[] {
  const conditions: SQL[] = [
    eq(storedReadings.participantId, scope.participantId),
    eq(storedReadings.teamId, scope.teamId),
    eq(storedReadings.brand, scope.brand),
  ];
  if (scope.metricKeys && scope.metricKeys.length > 0)
    conditions.push(inArray(storedReadings.metricKey, [...scope.metricKeys]));
  return conditions;
}

function sum(units: readonly Unit[]): number {
  return units.reduce((total, unit) => total + unit.n, 0);
}

/** The scope's keys on a readings table (no alias), metrics optional; also the kept totals'. */
export function keysOf(scope: ReadingsListScope): SQL {
  const metrics =
    scope.metricKeys && scope.metricKeys.length > 0
      ? sql`and metric_key in (${sql.join(
          scope.metricKeys.map((key) => sql`${key}`),
          sql`, `,
        )})`
      : sql``;
  return sql`participant_id = ${scope.participantId} and team_id = ${scope.teamId}
    and brand = ${scope.brand}::device_brand ${metrics}`;
}

/** The chunked metrics of the scope (each read in its primary key's period order). */
function chunkedMetrics(scope: ReadingsListScope): string[] {
  const chunked = [...CHUNK_PERIOD_MS.keys()];
  return scope.metricKeys && scope.metricKeys.length > 0
    ? chunked.filter((key) => scope.metricKeys!.includes(key))
    : chunked;
}

/**
 * The first `limit` units of the scope from the near end: each chunk (its period start, last
 * point and size) and each row, by instant. Chunks come in their primary key's order (one
 * index range per chunked metric); rows per month partition, newest or oldest first.
 */
async function walk(
  db: Db,
  scope: ReadingsListScope,
  descending: boolean,
  limit: number,
): Promise<Unit[]> {
  const direction = sql.raw(descending ? 'desc' : 'asc');
  const keys = keysOf(scope);
  const parts: SQL[] = chunkedMetrics(scope).map(
    (metricKey) => sql`(select period_start as f, last_at as t, cardinality(steps_ms) as n
        from device_reading_chunks
       where participant_id = ${scope.participantId} and team_id = ${scope.teamId}
         and metric_key = ${metricKey} and brand = ${scope.brand}::device_brand
       order by period_start ${direction} limit ${limit})`,
  );
  // Rows metric by metric, each the first `limit` of its primary key's range (participant,
  // team, metric, recorded_at), for the metrics the kept totals say have rows: one range of
  // `device_readings` ordered by time has no metric, so it sorted all of the scope's rows
  // on every page, a cost that grew with the participant's history (decision 0273).
  parts.push(sql`(select r.f, r.t, 1 as n
      from device_reading_totals m
      cross join lateral (
        select d.recorded_at as f, d.recorded_at as t from device_readings d
         where d.participant_id = m.participant_id and d.team_id = m.team_id
           and d.metric_key = m.metric_key and d.brand = m.brand
         order by d.recorded_at ${direction} limit ${limit}) r
     where ${keys} and m.row_readings > 0
     order by r.f ${direction} limit ${limit})`);
  const result = await db.execute<{ f: string | Date; t: string | Date; n: number }>(sql`
    select f, t, n from (${sql.join(parts, sql` union all `)}) u
     order by f ${direction}, t ${direction} limit ${limit}`);
  return result.rows.map((row) => ({
    from: new Date(row.f).getTime(),
    to: new Date(row.t).getTime(),
    n: Number(row.n),
  }));
}

/**
 * Exactly how many of the scope's readings come before the window in the walk's direction:
 * at or after `edge` (descending) or before it (ascending). Rows and whole chunks are
 * counted by their keys; the chunk that straddles the edge is unnested.
 */
async function countNearer(
  db: Db,
  scope: ReadingsListScope,
  descending: boolean,
  edge: Date,
): Promise<number> {
  const at = sql.raw(`'${edge.toISOString()}'::timestamptz`);
  const earliest = sql.raw(
    `'${new Date(edge.getTime() - CHUNK_PERIOD_MAX_MS).toISOString()}'::timestamptz`,
  );
  const keys = keysOf(scope);
  const viewKeys = sql`s.participant_id = ${scope.participantId} and s.team_id = ${scope.teamId}
    and s.brand = ${scope.brand}::device_brand
    ${
      scope.metricKeys && scope.metricKeys.length > 0
        ? sql`and s.metric_key in (${sql.join(
            scope.metricKeys.map((key) => sql`${key}`),
            sql`, `,
          )})`
        : sql``
    }`;
  const result = await db.execute<{ n: number }>(
    descending
      ? sql`select (select count(*) from device_readings where ${keys} and recorded_at >= ${at})
          + (select coalesce(sum(cardinality(steps_ms)), 0) from device_reading_chunks
              where ${keys} and period_start >= ${at})
          + (select count(*) from stored_readings s
              where ${viewKeys} and s.recorded_at >= ${at}
                and s.chunk_from < ${at} and s.chunk_from > ${earliest} and s.chunk_to >= ${at}) as n`
      : sql`select (select count(*) from device_readings where ${keys} and recorded_at < ${at})
          + (select coalesce(sum(cardinality(steps_ms)), 0) from device_reading_chunks
              where ${keys} and period_start < ${at} and last_at < ${at})
          + (select count(*) from stored_readings s
              where ${viewKeys} and s.recorded_at < ${at}
                and s.chunk_from < ${at} and s.chunk_from > ${earliest} and s.chunk_to >= ${at}) as n`,
  );
  return Number(result.rows[0]?.n ?? 0);
}
