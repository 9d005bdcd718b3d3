import type { DeviceBrand } from '../../db/schema';
import type { DbOrTx } from '../../db/client';
import {
  UPSERT_BATCH_SIZE,
  type ReadingInput,
  type ReadingsQuery,
  type ReadingsRepository,
  type StoredReading,
  type UpsertCounts,
} from './readings.repository';
import type { SyncRepository } from './sync.repository';
import type { MirrorRange } from './sources/types';
import {
  currentOffsets,
  dailySummaries,
  dayOffsets,
  firstDataDays,
  refreshReadingDays,
  writeWithoutJit,
  type DailySummary,
  type DayOffset,
  type FirstDataDay,
} from './daily-summary';
import { readingsCsv, type ReadingsCsv, type ReadingsCsvLabels } from './readings-csv';
import { CHUNK_PERIOD_MS, lockChunkWriters } from './chunk-store';
import {
  dissolveChunksOf,
  groupKey,
  mirrorUnreachedChunks,
  splitForChunks,
  writeChunkGroups,
  type ChunkGroup,
  type ChunkMirror,
} from './chunk-writer';
import {
  createReadingsReads,
  type ReadingsListQuery,
  type ReadingsListScope,
} from './readings-reads';

export type {
  DailySummary,
  DayOffset,
  FirstDataDay,
  ReadingInput,
  ReadingsListQuery,
  ReadingsListScope,
  ReadingsQuery,
  StoredReading,
  UpsertCounts,
};

/** What one `store` wrote: rows inserted and updated, and deleted by its mirror. */
export type StoreCounts = UpsertCounts & { deleted: number };

/**
 * A fetched window to mirror (decision 0112): the stored readings of this participant, team,
 * brand and metrics in `range` that the rows stored do not hold are deleted.
 */
export type StoreMirror = {
  participantId: number;
  teamId: number;
  brand: DeviceBrand;
  metricKeys: readonly string[];
  range: MirrorRange;
};

/** What sync has fetched for a participant's metric: every reading in [from, until). */
export type SyncCoverage = { from: Date; until: Date };

/** Readings this far before the first reading of the supported range are refused (bad provider data). */
const EARLIEST_ACCEPTED = Date.UTC(2000, 0, 1);
/** Readings further than this in the future are refused (a device with a wrong clock). */
const FUTURE_TOLERANCE_MS = 2 * 24 * 60 * 60 * 1000;
/** Pages of points per slice of a chunked stream that `iterate` reads (decision 0255). */
const ITERATE_SLICE_PAGES = 4;
/** Default freshness a caller accepts from `covers` (twice the 15-minute intraday cycle, plus a margin). */
export const DEFAULT_COVERAGE_STALENESS_MS = 60 * 60 * 1000;

/**
 * Stored device readings: the one way other modules read them (data views, exports,
 * completeness, weekly summary) and the sync's write path. Callers check access first
 * (the access module); every read here is scoped by team and participant.
 */
export function createReadingsService(deps: {
  readings: ReadingsRepository;
  sync: SyncRepository;
  now?: () => Date;
}) {
  const { readings, sync } = deps;
  const now = deps.now ?? (() => new Date());
  const reads = createReadingsReads(readings.db);

  return {
    /** One page of a participant's readings of a brand with provenance (device-data's tables). */
    page(scope: ReadingsListScope, query: ReadingsListQuery) {
      return reads.page(scope, query);
    },

    /** Which of these participants have stored readings of the brand (export's participant list). */
    participantsWithReadings(
      teamId: number,
      brand: DeviceBrand,
      participantIds: readonly number[],
    ) {
      return reads.participantsWithReadings(teamId, brand, participantIds);
    },

    /** The team's stored readings of a metric from devices of `brands` (the retention page). */
    countOfTeamMetric(teamId: number, metricKey: string, brands: readonly DeviceBrand[]) {
      return reads.countOfTeamMetric(teamId, metricKey, brands);
    },

    /**
     * How many readings the participant has, in the caller's transaction (`tx`): the
     * participants module counts what a deletion takes with it for its audit row.
     */
    countOfParticipant(tx: DbOrTx, teamId: number, participantId: number): Promise<number> {
      return readings.countOfParticipant(tx, teamId, participantId);
    },

    /**
     * Readings of a participant in [from, to), ordered by metric, time, brand. For ranges
     * that may hold many rows (a year of heart rate) use `iterate`.
     */
    read(query: ReadingsQuery, options: { limit?: number } = {}): Promise<StoredReading[]> {
      return readings.read(query, options);
    },

    /**
     * The same readings in pages of `pageSize` (keyset paging on the primary key), for
     * exports and aggregates that must not hold a year of heart rate in memory. Chunked
     * streams (decision 0255) are read in slices of time of a few pages' points each (from
     * the chunks' sizes), metric by metric in the database's order: a keyset page over the
     * whole range would unnest and sort every chunk of the range again for each page. The
     * pages are the same either way.
     */
    async *iterate(
      query: ReadingsQuery,
      options: { pageSize?: number } = {},
    ): AsyncGenerator<StoredReading[]> {
      const pageSize = options.pageSize ?? 10_000;
      const keyset = async function* (part: ReadingsQuery) {
        let after: StoredReading | undefined;
        for (;;) {
          const page = await readings.read(part, { limit: pageSize, ...(after && { after }) });
          if (page.length > 0) yield page;
          if (page.length < pageSize) return;
          after = page.at(-1);
        }
      };
      const chunked = (query.metricKeys ?? [...CHUNK_PERIOD_MS.keys()]).some((key) =>
        CHUNK_PERIOD_MS.has(key),
      );
      if (!chunked) {
        yield* keyset(query);
        return;
      }
      let buffer: StoredReading[] = [];
      for (const metricKey of await readings.metricsIn(query)) {
        const slices: ReadingsQuery[] = [];
        const metricQuery = { ...query, metricKeys: [metricKey] };
        if (CHUNK_PERIOD_MS.has(metricKey)) {
          // Slices that start at a chunk and hold about ITERATE_SLICE_PAGES pages of its
          // points, from the chunks' own sizes; together they cover [from, to) (the rows).
          let sliceFrom = query.from.getTime();
          let points = 0;
          for (const chunk of await readings.chunkSizes(metricQuery)) {
            if (points >= ITERATE_SLICE_PAGES * pageSize && chunk.periodStart > sliceFrom) {
              slices.push({
                ...metricQuery,
                from: new Date(sliceFrom),
                to: new Date(chunk.periodStart),
              });
              sliceFrom = chunk.periodStart;
              points = 0;
            }
            points += chunk.points;
          }
          slices.push({ ...metricQuery, from: new Date(sliceFrom), to: query.to });
        } else slices.push(metricQuery);
        for (const slice of slices) {
          for await (const page of keyset(slice)) {
            buffer = buffer.length === 0 ? page : [...buffer, ...page];
            while (buffer.length >= pageSize) {
              yield buffer.slice(0, pageSize);
              buffer = buffer.slice(pageSize);
            }
          }
        }
      }
      if (buffer.length > 0) yield buffer;
    },

    // --- Export read path (issue 19, decision 0048): the same readings as CSV, streamed.
    /**
     * Readings of a participant in [from, to) as CSV formatted by the database (see
     * readings-csv.ts): `COPY … TO STDOUT` on PostgreSQL, keyset batches on PGlite.
     */
    csv(
      query: ReadingsQuery,
      labels: ReadingsCsvLabels,
      options: { header: boolean; batchSize?: number },
    ): ReadingsCsv {
      return readingsCsv(readings.db, query, labels, options);
    },
    // --- end of the export read path.

    /** Per metric and brand: rows stored, earliest and latest reading. */
    stats(teamId: number, participantId: number, brand?: DeviceBrand) {
      return readings.stats(teamId, participantId, brand);
    },

    /**
     * Per participant and local civil day in [fromDay, toDay]: wear minutes, steps, sleep,
     * blood-pressure, weight and CGM counts, read from the day summary the write path keeps
     * (completeness grid, CSV; decision 0058). Days without readings are absent.
     */
    dailySummaries(
      teamId: number,
      participantIds: readonly number[],
      fromDay: string,
      toDay: string,
    ): Promise<DailySummary[]> {
      return dailySummaries(readings.db, teamId, participantIds, fromDay, toDay);
    },

    /**
     * Each participant's current UTC offset at `at` (their latest reading's that has one):
     * what decides their local today and "last N days" (decision 0180). Absent: UTC.
     */
    currentOffsets(
      teamId: number,
      participantIds: readonly number[],
      at: Date,
    ): Promise<Map<number, number>> {
      return currentOffsets(readings.db, teamId, participantIds, at);
    },

    /** Per local day of a participant, the offsets it began and ended with (exports' daily values). */
    dayOffsets(
      teamId: number,
      participantId: number,
      days: { start: string; end: string },
    ): Promise<DayOffset[]> {
      return dayOffsets(readings.db, teamId, participantId, days.start, days.end);
    },

    /** Per participant and metric, the first local day with readings (the day summary's). */
    firstDataDays(
      teamId: number,
      participantIds: readonly number[],
      metricKeys: readonly string[],
    ): Promise<FirstDataDay[]> {
      return firstDataDays(readings.db, teamId, participantIds, metricKeys);
    },

    /** The latest reading per participant (for "last data N days ago"). */
    latestByParticipant(teamId: number, participantIds: readonly number[], brand?: DeviceBrand) {
      return readings.latestByParticipant(teamId, participantIds, brand);
    },

    /**
     * What sync has fetched for the participant's metric of a brand, or null when it has
     * not fetched anything yet. Over several connections of the brand, the widest.
     */
    async coverage(
      teamId: number,
      participantId: number,
      brand: DeviceBrand,
      metricKey: string,
    ): Promise<SyncCoverage | null> {
      const cursors = await sync.cursorsOf(teamId, participantId, brand, metricKey);
      let best: SyncCoverage | null = null;
      for (const cursor of cursors) {
        if (!cursor.syncedUntil || cursor.syncedUntil <= cursor.backfillFrom) continue;
        const span = { from: cursor.backfillFrom, until: cursor.syncedUntil };
        if (
          !best ||
          span.until.getTime() - span.from.getTime() > best.until.getTime() - best.from.getTime()
        )
          best = span;
      }
      return best;
    },

    /**
     * Whether stored readings answer a query for [from, to): sync has fetched from `from`
     * on, and up to `to` (or up to now, when `to` is later) less the staleness the caller
     * accepts. Callers that answer false fetch from the provider instead.
     */
    async covers(
      range: {
        teamId: number;
        participantId: number;
        brand: DeviceBrand;
        metricKey: string;
        from: Date;
        to: Date;
      },
      options: { stalenessMs?: number } = {},
    ): Promise<boolean> {
      const coverage = await this.coverage(
        range.teamId,
        range.participantId,
        range.brand,
        range.metricKey,
      );
      if (!coverage) return false;
      const needUntil =
        Math.min(range.to.getTime(), now().getTime()) -
        (options.stalenessMs ?? DEFAULT_COVERAGE_STALENESS_MS);
      return (
        coverage.from.getTime() <= range.from.getTime() && coverage.until.getTime() >= needUntil
      );
    },

    /**
     * The sync's write path: de-duplicates on the key (last one wins), drops readings with
     * impossible instants, creates missing partitions, then merges in batches of
     * UPSERT_BATCH_SIZE, one transaction each, in which the day summary of the days whose
     * rows changed is recomputed (decision 0058); `within` runs in the last one (the cursor
     * moves with the last of the rows it covers, so a crash never leaves it ahead of them).
     * With `mirror` (a complete answer for a window, decision 0112), the last transaction also
     * deletes the stored readings of the mirror's range that `rows` do not hold, and
     * recomputes their days: the window's rows, deletions and cursor commit together.
     */
    async store(
      rows: readonly ReadingInput[],
      options: {
        syncRunId?: number | null;
        /** Runs in the last batch's transaction (the cursor). */
        within?: (tx: DbOrTx, counts: StoreCounts) => Promise<void>;
        /** Runs in every other batch's transaction (the run's counters), with the totals so far. */
        afterBatch?: (tx: DbOrTx, counts: StoreCounts) => Promise<void>;
        mirror?: StoreMirror;
      } = {},
    ): Promise<UpsertCounts & { rejected: number; /** With `mirror` only. */ deleted?: number }> {
      const latestAccepted = now().getTime() + FUTURE_TOLERANCE_MS;
      const unique = new Map<string, ReadingInput>();
      let rejected = 0;
      for (const row of rows) {
        const at = row.recordedAt.getTime();
        if (!Number.isFinite(at) || at < EARLIEST_ACCEPTED || at > latestAccepted) {
          rejected += 1;
          continue;
        }
        if (
          (row.value === null || row.value === undefined || !Number.isFinite(row.value)) &&
          (row.valueJson === null || row.valueJson === undefined)
        ) {
          rejected += 1;
          continue;
        }
        unique.set(`${row.participantId}|${row.teamId}|${row.metricKey}|${at}|${row.brand}`, row);
      }
      const batch = [...unique.values()];
      const syncRunId = options.syncRunId ?? null;
      // Dense streams a sync stored go into chunks (decision 0255); the rest stays rows.
      const { rows: rowInputs, groups } = splitForChunks(batch, syncRunId);
      const mirror = options.mirror;
      const chunkMirror: ChunkMirror | undefined = mirror && {
        participantId: mirror.participantId,
        teamId: mirror.teamId,
        brand: mirror.brand,
        metricKeys: mirror.metricKeys,
        from: mirror.range.from.getTime(),
        to: mirror.range.to.getTime(),
      };
      const mirrorsChunks =
        chunkMirror?.metricKeys.some((key) => CHUNK_PERIOD_MS.has(key)) ?? false;
      // One transaction per unit of work: a batch of UPSERT_BATCH_SIZE rows, or chunk groups
      // holding up to as many points.
      type Unit = { rows: ReadingInput[]; groups: ChunkGroup[] };
      const units: Unit[] = [];
      for (let index = 0; index < rowInputs.length; index += UPSERT_BATCH_SIZE)
        units.push({ rows: rowInputs.slice(index, index + UPSERT_BATCH_SIZE), groups: [] });
      let pending: Unit | undefined;
      let pendingPoints = 0;
      for (const group of groups) {
        if (!pending || pendingPoints + group.points.length > UPSERT_BATCH_SIZE) {
          pending = { rows: [], groups: [] };
          pendingPoints = 0;
          units.push(pending);
        }
        pending.groups.push(group);
        pendingPoints += group.points.length;
      }
      if (units.length === 0) units.push({ rows: [], groups: [] });
      const reached = new Set(groups.map(groupKey));
      const write = async () => {
        await readings.ensurePartitions(batch.map((row) => row.recordedAt));
        // One transaction per unit, not one for the whole store: the embedded database has
        // one connection, and a window of second-level heart rate (100,000+ rows) in one
        // transaction kept every request waiting for its commit. Only the last unit runs
        // `within` (the cursor), so a crash between units leaves readings without the
        // cursor, never the cursor without its readings; the re-run merges them again and
        // adds nothing (decision 0035).
        const counts: StoreCounts = { inserted: 0, updated: 0, deleted: 0 };
        for (let index = 0; index < units.length; index += 1) {
          if (index > 0) await new Promise((resolve) => setImmediate(resolve));
          const unit = units[index]!;
          const last = index === units.length - 1;
          await readings.transaction(async (tx) => {
            // No JIT in the write transaction, however many partitions (decision 0200).
            await writeWithoutJit(tx);
            // Every write of a chunked stream's keys (rows of its metric too: they may
            // dissolve a chunk) holds its participants' chunk lock (decision 0255).
            const chunkParticipants = new Set<number>([
              ...unit.groups.map((group) => group.participantId),
              ...unit.rows
                .filter((row) => CHUNK_PERIOD_MS.has(row.metricKey))
                .map((row) => row.participantId),
              ...(last && mirrorsChunks && mirror ? [mirror.participantId] : []),
            ]);
            await lockChunkWriters(tx, chunkParticipants);
            if (unit.rows.some((row) => CHUNK_PERIOD_MS.has(row.metricKey)))
              await dissolveChunksOf(tx, readings, unit.rows);
            const written =
              unit.rows.length > 0
                ? await readings.upsertBatch(tx, unit.rows, syncRunId)
                : undefined;
            const chunked =
              unit.groups.length > 0 && syncRunId !== null
                ? await writeChunkGroups(tx, readings, unit.groups, syncRunId, chunkMirror)
                : undefined;
            // After every unit is written: the keep list is the whole window's readings.
            const gone =
              last && mirror ? await readings.deleteAbsent(tx, mirror, batch) : undefined;
            const goneChunks =
              last && chunkMirror && mirrorsChunks
                ? await mirrorUnreachedChunks(tx, chunkMirror, reached)
                : undefined;
            const total = {
              inserted: counts.inserted + (written?.inserted ?? 0) + (chunked?.inserted ?? 0),
              updated: counts.updated + (written?.updated ?? 0) + (chunked?.updated ?? 0),
              deleted:
                counts.deleted +
                (gone?.deleted ?? 0) +
                (chunked?.deleted ?? 0) +
                (goneChunks?.deleted ?? 0),
            };
            if (last) await options.within?.(tx, total);
            else await options.afterBatch?.(tx, total);
            // The day summary of the days the readings changed or were deleted from
            // (decision 0058), last: its lock is held only until the commit that follows.
            await refreshReadingDays(tx, [
              ...(written?.touched ?? []),
              ...(chunked?.touched ?? []),
              ...(gone?.touched ?? []),
              ...(goneChunks?.touched ?? []),
            ]);
            counts.inserted = total.inserted;
            counts.updated = total.updated;
            counts.deleted = total.deleted;
          });
        }
        return counts;
      };
      const result = ({ deleted, ...counts }: StoreCounts) => ({
        ...counts,
        rejected,
        ...(options.mirror && { deleted }),
      });
      try {
        return result(await write());
      } catch (error) {
        // Another process's purge dropped a partition this process still believed in.
        if (!isMissingPartition(error)) throw error;
        readings.forgetPartitions();
        return result(await write());
      }
    },
  };
}

export type ReadingsService = ReturnType<typeof createReadingsService>;

/** SQLSTATE 23514 "no partition of relation … found for row". */
function isMissingPartition(error: unknown): boolean {
  let current: unknown = error;
  while (current && typeof current === 'object') {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (code === '23514' && typeof message === 'string' && message.includes('no partition'))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}
