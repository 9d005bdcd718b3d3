import { sql } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import type { DeviceBrand, ReadingUpstream } from '../../db/schema';
import { chunkArraysText, fromChunkArrays, jsonbArrayOf, toChunkArrays } from './chunk-arrays';
import type { ChunkPoint } from './chunk-merge';
import type { ReadingDayKey } from './daily-summary';

/**
 * The only code that writes `device_reading_chunks` (issue 29, decisions 0220 and 0255):
 * chunks read and written whole, in the caller's transaction. Readers never come here; they
 * read `stored_readings` (stored-readings.ts), or, for counts and first and last instants,
 * the chunks' own columns beside the rows (readings.repository.ts), never unnesting them.
 */

/**
 * The streams stored as chunks, with their period (issue 29): heart rate, sampled every few
 * seconds, in UTC hours (decision 0220); CGM readings (Dexcom's egv every 5 minutes, with
 * their trend and status as JSON, and its trend rate) in UTC days (decision 0270): 288
 * points a day, which a row each stored at ~225 bytes. Intraday steps are stored per day, so
 * no other stream is dense enough for the rule "every minute or more often".
 */
export const CHUNK_PERIOD_MS: ReadonlyMap<string, number> = new Map([
  ['heart_rate', 3_600_000],
  ['egv', 86_400_000],
  ['egv_trend_rate', 86_400_000],
]);

/** The stream a chunk belongs to. */
export type ChunkStream = {
  participantId: number;
  teamId: number;
  metricKey: string;
  brand: DeviceBrand;
};

export type ChunkProvenance = {
  upstream: ReadingUpstream;
  dataSource: string | null;
  syncRunId: number;
};

/** One chunk as stored: its stream, period and points in time order. */
export type StoredChunk = ChunkStream &
  ChunkProvenance & {
    periodStart: number;
    points: ChunkPoint[];
  };

/** The start of the period of `periodMs` that `at` falls in (UTC periods: a day divides evenly). */
export function periodOf(at: number, periodMs: number): number {
  return Math.floor(at / periodMs) * periodMs;
}

/** The local civil day of a chunk point (decision 0051: its instant plus its offset). */
export function pointDay(point: ChunkPoint): string {
  const local = point.at + (point.offset ?? 0) * 60_000;
  return new Date(Math.floor(local / 86_400_000) * 86_400_000).toISOString().slice(0, 10);
}

/** The day-summary keys of `points` of one stream. */
export function dayKeysOf(stream: ChunkStream, points: readonly ChunkPoint[]): ReadingDayKey[] {
  const days = new Set(points.map(pointDay));
  return [...days].map((day) => ({
    participantId: stream.participantId,
    teamId: stream.teamId,
    metricKey: stream.metricKey,
    day,
  }));
}

/** Advisory lock space of chunk writes: key (20255, participant id). */
const LOCK_SPACE = 20255;

/**
 * Serialises every write of these participants' chunked streams until the caller's
 * transaction ends: two syncs of one participant merge one after the other, each with the
 * other's committed points (a chunk's row lock cannot cover a chunk not yet inserted, nor
 * the choice of rows or chunk for a key). Ids in order, so two callers never deadlock.
 */
export async function lockChunkWriters(
  tx: DbOrTx,
  participantIds: Iterable<number>,
): Promise<void> {
  const ids = [...new Set([...participantIds].map((id) => Math.trunc(id)))].sort((a, b) => a - b);
  if (ids.length === 0) return;
  await tx.execute(
    sql`select pg_advisory_xact_lock(${LOCK_SPACE}, id) from unnest(${`{${ids.join(',')}}`}::int[]) as id order by id`,
  );
}

type ChunkRow = {
  participant_id: number;
  team_id: number;
  metric_key: string;
  brand: DeviceBrand;
  period_start: string | Date;
  s: number[] | string;
  v: number[] | string;
  o: (number | null)[] | string;
  j: unknown[] | string | null;
  upstream: ReadingUpstream;
  data_source: string | null;
  sync_run_id: number | string;
};

/** JSON columns come back parsed from node-postgres and PGlite alike; text just in case. */
const json = <T>(value: T | string): T =>
  typeof value === 'string' ? (JSON.parse(value) as T) : value;

function toStoredChunk(row: ChunkRow): StoredChunk {
  const periodStart = new Date(row.period_start).getTime();
  return {
    participantId: Number(row.participant_id),
    teamId: Number(row.team_id),
    metricKey: row.metric_key,
    brand: row.brand,
    periodStart,
    upstream: row.upstream,
    dataSource: row.data_source,
    syncRunId: Number(row.sync_run_id),
    points: fromChunkArrays(periodStart, {
      stepsMs: json(row.s),
      values: json(row.v),
      utcOffsets: json(row.o),
      valueJsons: row.j === null ? null : json(row.j),
    }),
  };
}

const CHUNK_SELECT = sql`participant_id, team_id, metric_key, brand, period_start,
  array_to_json(steps_ms) as s, array_to_json(value) as v, array_to_json(utc_offset_minutes) as o,
  array_to_json(value_json) as j, upstream, data_source, sync_run_id`;

/**
 * The chunks of one stream whose period starts in [from, to) (instants), in period order.
 * Hold `lockChunkWriters` first when the chunks are to be merged and written back.
 */
export async function loadChunks(
  tx: DbOrTx,
  stream: ChunkStream,
  from: number,
  to: number,
): Promise<StoredChunk[]> {
  const result = await tx.execute<ChunkRow>(sql`
    select ${CHUNK_SELECT} from device_reading_chunks
     where participant_id = ${stream.participantId} and team_id = ${stream.teamId}
       and metric_key = ${stream.metricKey} and brand = ${stream.brand}::device_brand
       and period_start >= ${new Date(from).toISOString()}::timestamptz
       and period_start < ${new Date(to).toISOString()}::timestamptz
     order by period_start`);
  return result.rows.map(toStoredChunk);
}

/**
 * Writes chunks whole in one statement: each replaces the stored chunk of its stream and
 * period, or is inserted; a chunk without points is deleted. `synced_at` is now(), or
 * `syncedAt`, or stays with `keepSyncedAt` (a rewrite that is no sync's: the purge).
 */
export async function saveChunks(
  tx: DbOrTx,
  chunks: readonly StoredChunk[],
  options: { keepSyncedAt?: boolean; syncedAt?: Date } = {},
): Promise<void> {
  const kept = chunks.filter((chunk) => chunk.points.length > 0);
  const emptied = chunks.filter((chunk) => chunk.points.length === 0);
  if (kept.length > 0) {
    const payload = JSON.stringify(
      kept.map((chunk) => {
        const arrays = chunkArraysText(toChunkArrays(chunk.periodStart, chunk.points));
        return {
          p: chunk.participantId,
          t: chunk.teamId,
          m: chunk.metricKey,
          b: chunk.brand,
          ps: new Date(chunk.periodStart).toISOString(),
          la: new Date(chunk.points.at(-1)!.at).toISOString(),
          s: arrays.s,
          v: arrays.v,
          o: arrays.o,
          j: arrays.j,
          u: chunk.upstream,
          ds: chunk.dataSource,
          r: chunk.syncRunId,
        };
      }),
    );
    await tx.execute(sql`
      insert into device_reading_chunks as c (
        participant_id, team_id, metric_key, period_start, brand, last_at,
        steps_ms, value, utc_offset_minutes, value_json, upstream, data_source, sync_run_id,
        synced_at
      )
      select r.p, r.t, r.m, r.ps, r.b, r.la, r.s::integer[], r.v::double precision[],
             r.o::smallint[], ${jsonbArrayOf(sql`r.j`)}, r.u, r.ds, r.r,
             ${options.syncedAt ? sql`${options.syncedAt.toISOString()}::timestamptz` : sql`now()`}
        from json_to_recordset(${payload}::json) as r(
          p integer, t integer, m text, b device_brand, ps timestamptz, la timestamptz,
          s text, v text, o text, j jsonb, u text, ds text, r bigint)
      on conflict (participant_id, team_id, metric_key, period_start, brand) do update set
        last_at = excluded.last_at,
        steps_ms = excluded.steps_ms,
        value = excluded.value,
        utc_offset_minutes = excluded.utc_offset_minutes,
        value_json = excluded.value_json,
        upstream = excluded.upstream,
        data_source = excluded.data_source,
        sync_run_id = excluded.sync_run_id,
        synced_at = ${options.keepSyncedAt ? sql`c.synced_at` : sql`excluded.synced_at`}`);
  }
  if (emptied.length > 0) {
    const payload = JSON.stringify(
      emptied.map((chunk) => ({
        p: chunk.participantId,
        t: chunk.teamId,
        m: chunk.metricKey,
        b: chunk.brand,
        ps: new Date(chunk.periodStart).toISOString(),
      })),
    );
    await tx.execute(sql`
      delete from device_reading_chunks c
       using json_to_recordset(${payload}::json) as r(p integer, t integer, m text, b device_brand, ps timestamptz)
       where c.participant_id = r.p and c.team_id = r.t and c.metric_key = r.m
         and c.brand = r.b and c.period_start = r.ps`);
  }
}

/**
 * The retention purge's share of the chunks (decision 0036): of a team's metric and brand,
 * the points before `cutoff`, at most `limit` chunks per call. A chunk wholly before it is
 * deleted; one that straddles it keeps its points from `cutoff` on. Returns the points
 * removed and the days they counted on (for the day summary), and whether chunks remain.
 */
export async function purgeChunks(
  tx: DbOrTx,
  scope: { teamId: number; metricKey: string; brand: string; cutoff: Date; limit: number },
): Promise<{ deleted: number; touched: ReadingDayKey[]; more: boolean }> {
  const cutoff = scope.cutoff.toISOString();
  const result = await tx.execute<ChunkRow>(sql`
    with doomed as (
      select participant_id, team_id, metric_key, period_start, brand from device_reading_chunks
       where team_id = ${scope.teamId} and metric_key = ${scope.metricKey}
         and brand = ${scope.brand}::device_brand and period_start < ${cutoff}::timestamptz
         -- Its first point is before the cutoff (a rewritten chunk is not selected again).
         and period_start + steps_ms[1] * interval '1 millisecond' < ${cutoff}::timestamptz
       order by participant_id, period_start
       limit ${scope.limit}
       for update
    )
    select ${CHUNK_SELECT} from device_reading_chunks c
     where (c.participant_id, c.team_id, c.metric_key, c.period_start, c.brand) in (select * from doomed)`);
  const chunks = result.rows.map(toStoredChunk);
  const cut = scope.cutoff.getTime();
  let deleted = 0;
  const touched: ReadingDayKey[] = [];
  const rewritten: StoredChunk[] = [];
  for (const chunk of chunks) {
    const gone = chunk.points.filter((point) => point.at < cut);
    if (gone.length === 0) continue;
    deleted += gone.length;
    touched.push(...dayKeysOf(chunk, gone));
    rewritten.push({ ...chunk, points: chunk.points.filter((point) => point.at >= cut) });
  }
  // A rewritten chunk keeps its provenance: the purge removes points, it does not sync them.
  await saveChunks(tx, rewritten, { keepSyncedAt: true });
  return { deleted, touched, more: chunks.length === scope.limit };
}
