import type { Db } from '../../db/client';
import {
  CHUNK_PERIOD_MS,
  loadChunks,
  lockChunkWriters,
  periodOf,
  saveChunks,
  type ChunkStream,
  type StoredChunk,
} from './chunk-store';
import type { ChunkPoint } from './chunk-merge';
import type { ReadingsRepository } from './readings.repository';

/** Rows read per batch: one short transaction each. */
export const CHUNK_MIGRATION_BATCH_ROWS = 5_000;

export type ChunkMigrationResult = {
  /** Transactions committed. */
  batches: number;
  /** Rows moved into chunks. */
  moved: number;
  /** Periods left as rows (more than one provenance, or a chunk of another provenance). */
  skipped: number;
  /** False when the deadline stopped it first: the next run goes on from what is left. */
  done: boolean;
};

/**
 * Moves the rows of chunked streams that earlier versions stored into chunks (issue 29,
 * decision 0255), while the server runs: stream by stream, period by period, in batches of
 * at most `batchRows` rows, each batch one transaction that holds the participant's chunk
 * lock (as the sync's writer does), deletes the rows and writes their chunk. The progress is
 * the data itself: a moved row is gone, so a run that crashed resumes by running again and
 * ends where an uninterrupted run ends. The readings, their days and so the day summary do
 * not change. A period whose rows name more than one upstream or data source, or whose chunk
 * has another, stays rows. `afterBatch` runs after each commit (tests stop it there).
 */
export async function chunkStoredRows(
  db: Db,
  readings: ReadingsRepository,
  options: {
    batchRows?: number;
    /** Stop starting batches after this instant (ms since the epoch). */
    deadline?: number;
    now?: () => number;
    afterBatch?: (batch: number) => void | Promise<void>;
  } = {},
): Promise<ChunkMigrationResult> {
  const batchRows = options.batchRows ?? CHUNK_MIGRATION_BATCH_ROWS;
  const now = options.now ?? Date.now;
  const result: ChunkMigrationResult = { batches: 0, moved: 0, skipped: 0, done: false };
  const streams = await readings.chunkableStreams([...CHUNK_PERIOD_MS.keys()]);
  for (const stream of streams) {
    const periodMs = CHUNK_PERIOD_MS.get(stream.metricKey)!;
    let from = 0;
    for (;;) {
      if (options.deadline !== undefined && now() >= options.deadline) return result;
      const step = await db.transaction(async (tx) => {
        await lockChunkWriters(tx, [stream.participantId]);
        let rows = await readings.chunkableRows(tx, stream, { from, limit: batchRows });
        if (rows.length === 0) return { next: null, moved: 0, skipped: 0 };
        const full = rows.length === batchRows;
        const lastPeriod = periodOf(rows.at(-1)!.at, periodMs);
        const firstPeriod = periodOf(rows[0]!.at, periodMs);
        let next: number | null = full ? lastPeriod : null;
        if (full && lastPeriod === firstPeriod) {
          // One period holds more than a batch: it moves whole, in this transaction.
          rows = await readings.chunkableRows(tx, stream, {
            from: firstPeriod,
            to: firstPeriod + periodMs,
          });
          next = firstPeriod + periodMs;
        } else if (full) {
          // The last period may go on past the batch: it starts the next one.
          rows = rows.filter((row) => row.at < lastPeriod);
        }
        const periods = new Map<number, typeof rows>();
        for (const row of rows) {
          const period = periodOf(row.at, periodMs);
          periods.set(period, [...(periods.get(period) ?? []), row]);
        }
        const starts = [...periods.keys()];
        const stored = new Map(
          (await loadChunks(tx, stream, Math.min(...starts), Math.max(...starts) + 1)).map(
            (chunk) => [chunk.periodStart, chunk],
          ),
        );
        const save: StoredChunk[] = [];
        const take: number[] = [];
        let skipped = 0;
        let syncedAt = 0;
        for (const [periodStart, periodRows] of periods) {
          const first = periodRows[0]!;
          const chunk = stored.get(periodStart);
          const provenance = chunk ?? first;
          if (
            periodRows.some(
              (row) =>
                row.upstream !== provenance.upstream || row.dataSource !== provenance.dataSource,
            )
          ) {
            skipped += 1;
            continue;
          }
          const points = new Map<number, ChunkPoint>(
            (chunk?.points ?? []).map((point) => [point.at, point]),
          );
          for (const row of periodRows) {
            points.set(row.at, {
              at: row.at,
              value: row.value,
              offset: row.offset,
              ...(row.json !== undefined && { json: row.json }),
            });
            take.push(row.at);
            syncedAt = Math.max(syncedAt, row.syncedAt.getTime());
          }
          save.push({
            ...streamOf(stream),
            periodStart,
            upstream: provenance.upstream,
            dataSource: provenance.dataSource,
            syncRunId: Math.max(chunk?.syncRunId ?? 0, ...periodRows.map((row) => row.syncRunId)),
            points: [...points.values()].sort((a, b) => a.at - b.at),
          });
        }
        await readings.takeRows(tx, stream, take);
        await saveChunks(tx, save, { syncedAt: new Date(syncedAt) });
        return { next, moved: take.length, skipped };
      });
      result.batches += 1;
      result.moved += step.moved;
      result.skipped += step.skipped;
      await options.afterBatch?.(result.batches);
      if (step.next === null) break;
      from = step.next;
    }
  }
  result.done = true;
  return result;
}

function streamOf(stream: ChunkStream): ChunkStream {
  return {
    participantId: stream.participantId,
    teamId: stream.teamId,
    metricKey: stream.metricKey,
    brand: stream.brand,
  };
}
