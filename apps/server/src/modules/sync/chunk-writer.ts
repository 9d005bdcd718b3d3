import type { DbOrTx } from '../../db/client';
import type { DeviceBrand, ReadingUpstream } from '../../db/schema';
import { mergeChunk, type ChunkPoint } from './chunk-merge';
import {
  CHUNK_PERIOD_MS,
  dayKeysOf,
  loadChunks,
  periodOf,
  saveChunks,
  type ChunkStream,
  type StoredChunk,
} from './chunk-store';
import type { ReadingDayKey } from './daily-summary';
import type { ReadingInput, ReadingsRepository, UpsertCounts } from './readings.repository';

/**
 * The sync's write path for chunked streams (issue 29, decisions 0220 and 0255), called by
 * `ReadingsService.store` inside its transactions, after `lockChunkWriters`. A key
 * (participant, team, metric, instant, brand) is kept in one store only: points that go
 * into a chunk take their key's row with them, and a row written into a chunk's period
 * first turns that chunk back into rows.
 */

/** The points of one stream and period that a store puts into one chunk. */
export type ChunkGroup = ChunkStream & {
  periodStart: number;
  periodMs: number;
  upstream: ReadingUpstream;
  dataSource: string | null;
  points: ChunkPoint[];
};

/** The mirror of a store (decision 0112), as the chunk writer applies it. */
export type ChunkMirror = {
  participantId: number;
  teamId: number;
  brand: DeviceBrand;
  metricKeys: readonly string[];
  from: number;
  to: number;
};

/**
 * Splits a store's (de-duplicated) readings: a chunked stream's points that a sync stored
 * (`syncRunId`), without an end, whose value is finite or absent (a CGM reading without a
 * glucose value keeps its JSON), grouped per stream and period;
 * a period whose points name more than one upstream or data source stays rows (a chunk has
 * one provenance), as does everything else.
 */
export function splitForChunks(
  readings: readonly ReadingInput[],
  syncRunId: number | null,
): { rows: ReadingInput[]; groups: ChunkGroup[] } {
  const rows: ReadingInput[] = [];
  const groups = new Map<string, { group: ChunkGroup; inputs: ReadingInput[]; mixed: boolean }>();
  for (const reading of readings) {
    const periodMs = CHUNK_PERIOD_MS.get(reading.metricKey);
    const chunkable =
      periodMs !== undefined &&
      syncRunId !== null &&
      !reading.endAt &&
      (reading.value === null ||
        reading.value === undefined ||
        (typeof reading.value === 'number' && Number.isFinite(reading.value)));
    if (!chunkable) {
      rows.push(reading);
      continue;
    }
    const at = reading.recordedAt.getTime();
    const periodStart = periodOf(at, periodMs);
    const key = `${reading.participantId}|${reading.teamId}|${reading.metricKey}|${reading.brand}|${periodStart}`;
    const dataSource = reading.dataSource ?? null;
    let entry = groups.get(key);
    if (!entry) {
      entry = {
        group: {
          participantId: reading.participantId,
          teamId: reading.teamId,
          metricKey: reading.metricKey,
          brand: reading.brand,
          periodStart,
          periodMs,
          upstream: reading.upstream,
          dataSource,
          points: [],
        },
        inputs: [],
        mixed: false,
      };
      groups.set(key, entry);
    }
    if (entry.group.upstream !== reading.upstream || entry.group.dataSource !== dataSource)
      entry.mixed = true;
    entry.inputs.push(reading);
    entry.group.points.push({
      at,
      value: reading.value ?? null,
      offset: reading.utcOffsetMinutes ?? null,
      ...(reading.valueJson !== null &&
        reading.valueJson !== undefined && { json: reading.valueJson }),
    });
  }
  const chunked: ChunkGroup[] = [];
  for (const entry of groups.values()) {
    if (entry.mixed) rows.push(...entry.inputs);
    else chunked.push(entry.group);
  }
  return { rows, groups: chunked };
}

/** The stream and period a row of a chunked metric would fall in, or null. */
export function periodOfRow(reading: ReadingInput): string | null {
  const periodMs = CHUNK_PERIOD_MS.get(reading.metricKey);
  if (periodMs === undefined) return null;
  return `${streamKey(reading)}|${periodOf(reading.recordedAt.getTime(), periodMs)}`;
}

const streamKey = (stream: ChunkStream) =>
  `${stream.participantId}|${stream.teamId}|${stream.metricKey}|${stream.brand}`;

/**
 * Before rows of a chunked metric are upserted: the chunks of their periods become rows
 * again (with the chunk's provenance and sync run), so the row upsert meets every stored
 * point of its key as the row store always did. Counts nothing: the readings are the same.
 */
export async function dissolveChunksOf(
  tx: DbOrTx,
  readings: ReadingsRepository,
  rows: readonly ReadingInput[],
): Promise<void> {
  const periods = new Map<string, { stream: ChunkStream; periods: Set<number> }>();
  for (const row of rows) {
    const periodMs = CHUNK_PERIOD_MS.get(row.metricKey);
    if (periodMs === undefined) continue;
    const key = streamKey(row);
    const entry = periods.get(key) ?? { stream: row, periods: new Set<number>() };
    entry.periods.add(periodOf(row.recordedAt.getTime(), periodMs));
    periods.set(key, entry);
  }
  for (const { stream, periods: starts } of periods.values()) {
    const sorted = [...starts].sort((a, b) => a - b);
    const chunks = (await loadChunks(tx, stream, sorted[0]!, sorted.at(-1)! + 1)).filter((chunk) =>
      starts.has(chunk.periodStart),
    );
    await dissolve(tx, readings, chunks);
  }
}

async function dissolve(
  tx: DbOrTx,
  readings: ReadingsRepository,
  chunks: readonly StoredChunk[],
): Promise<void> {
  for (const chunk of chunks) {
    await readings.upsertBatch(
      tx,
      chunk.points.map((point) => ({
        participantId: chunk.participantId,
        teamId: chunk.teamId,
        metricKey: chunk.metricKey,
        brand: chunk.brand,
        recordedAt: new Date(point.at),
        utcOffsetMinutes: point.offset,
        value: point.value,
        valueJson: point.json ?? null,
        upstream: chunk.upstream,
        dataSource: chunk.dataSource,
      })),
      chunk.syncRunId,
    );
  }
  await saveChunks(
    tx,
    chunks.map((chunk) => ({ ...chunk, points: [] })),
  );
}

/**
 * Merges `groups` (one transaction's share) into their chunks: per stream, the stored
 * chunks of the groups' periods and the rows of the incoming keys (taken out of
 * `device_readings`: a key lives in one store) are merged with `mergeChunk`, and a chunk is
 * written only when the merge changed it (or took rows in). With `mirror`, stored points of
 * the mirror's window that a group does not hold are deleted. A group whose stored chunk
 * has another upstream or data source is written as rows, after its chunk (decision 0255).
 * Returns the counts and the days touched, for the day summary.
 */
export async function writeChunkGroups(
  tx: DbOrTx,
  readings: ReadingsRepository,
  groups: readonly ChunkGroup[],
  syncRunId: number,
  mirror: ChunkMirror | undefined,
): Promise<UpsertCounts & { deleted: number; touched: ReadingDayKey[] }> {
  const counts = { inserted: 0, updated: 0, deleted: 0 };
  const touched: ReadingDayKey[] = [];
  const byStream = new Map<string, ChunkGroup[]>();
  for (const group of groups) {
    const key = streamKey(group);
    byStream.set(key, [...(byStream.get(key) ?? []), group]);
  }
  for (const streamGroups of byStream.values()) {
    const stream = streamGroups[0]!;
    const first = Math.min(...streamGroups.map((group) => group.periodStart));
    const last = Math.max(...streamGroups.map((group) => group.periodStart));
    const stored = new Map(
      (await loadChunks(tx, stream, first, last + 1)).map((chunk) => [chunk.periodStart, chunk]),
    );
    const instants = streamGroups.flatMap((group) => group.points.map((point) => point.at));
    const taken = await readings.takeRows(tx, stream, instants);
    const takenAt = new Map(taken.map((row) => [row.at, row]));
    const window = mirrorOf(mirror, stream);
    const save: StoredChunk[] = [];
    const asRows: ReadingInput[] = [];
    const dissolved: StoredChunk[] = [];
    for (const group of streamGroups) {
      const chunk = stored.get(group.periodStart);
      if (chunk && (chunk.upstream !== group.upstream || chunk.dataSource !== group.dataSource)) {
        // Another provenance: the period goes back to rows, where each reading has its own.
        dissolved.push(chunk);
        asRows.push(...group.points.map((point) => inputOf(group, point)));
        continue;
      }
      const inPeriod = taken.filter(
        (row) => row.at >= group.periodStart && row.at < group.periodStart + group.periodMs,
      );
      const points = new Map((chunk?.points ?? []).map((point) => [point.at, point]));
      for (const row of inPeriod) points.set(row.at, row);
      const merge = mergeChunk(
        [...points.values()].sort((a, b) => a.at - b.at),
        group.points,
        window,
      );
      // A taken row whose value and offset the group repeats but whose provenance differs
      // is an update, as the row store's upsert would count it.
      let reprovenanced = 0;
      for (const point of group.points) {
        const row = takenAt.get(point.at);
        if (
          row &&
          !merge.touched.some((moved) => moved.at === point.at) &&
          (row.upstream !== group.upstream || row.dataSource !== group.dataSource || row.hasExtra)
        )
          reprovenanced += 1;
      }
      counts.inserted += merge.inserted;
      counts.updated += merge.updated + reprovenanced;
      counts.deleted += merge.deleted;
      touched.push(...dayKeysOf(group, merge.touched));
      if (merge.changed || inPeriod.length > 0)
        save.push({
          ...group,
          syncRunId,
          points: merge.points,
        });
    }
    await saveChunks(tx, save);
    if (dissolved.length > 0) {
      await dissolve(tx, readings, dissolved);
      const written = await readings.upsertBatch(tx, asRows, syncRunId);
      counts.inserted += written.inserted;
      counts.updated += written.updated;
      touched.push(...written.touched);
    }
  }
  return { ...counts, touched };
}

/**
 * The mirror's share of chunks no group of this store reached: the stored points of the
 * window in the mirror's chunked streams, where the fetched answer held nothing in their
 * period, are deleted (decision 0112). `reached`: "stream|period" of every group stored.
 */
export async function mirrorUnreachedChunks(
  tx: DbOrTx,
  mirror: ChunkMirror,
  reached: ReadonlySet<string>,
): Promise<{ deleted: number; touched: ReadingDayKey[] }> {
  let deleted = 0;
  const touched: ReadingDayKey[] = [];
  for (const metricKey of mirror.metricKeys) {
    const periodMs = CHUNK_PERIOD_MS.get(metricKey);
    if (periodMs === undefined || mirror.from >= mirror.to) continue;
    const stream = { ...mirror, metricKey };
    const chunks = await loadChunks(tx, stream, periodOf(mirror.from, periodMs), mirror.to);
    const save: StoredChunk[] = [];
    for (const chunk of chunks) {
      if (reached.has(`${streamKey(chunk)}|${chunk.periodStart}`)) continue;
      const merge = mergeChunk(chunk.points, [], { from: mirror.from, to: mirror.to });
      if (!merge.changed) continue;
      deleted += merge.deleted;
      touched.push(...dayKeysOf(chunk, merge.touched));
      save.push({ ...chunk, points: merge.points });
    }
    // Deleting keeps the chunk's run: the points left are the ones that run stored.
    await saveChunks(tx, save);
  }
  return { deleted, touched };
}

/** The "stream|period" key of a group (what `mirrorUnreachedChunks` skips). */
export function groupKey(group: ChunkGroup): string {
  return `${streamKey(group)}|${group.periodStart}`;
}

function mirrorOf(
  mirror: ChunkMirror | undefined,
  stream: ChunkStream,
): { from: number; to: number } | undefined {
  if (
    !mirror ||
    mirror.participantId !== stream.participantId ||
    mirror.teamId !== stream.teamId ||
    mirror.brand !== stream.brand ||
    !mirror.metricKeys.includes(stream.metricKey)
  )
    return undefined;
  return { from: mirror.from, to: mirror.to };
}

function inputOf(group: ChunkGroup, point: ChunkPoint): ReadingInput {
  return {
    participantId: group.participantId,
    teamId: group.teamId,
    metricKey: group.metricKey,
    brand: group.brand,
    recordedAt: new Date(point.at),
    utcOffsetMinutes: point.offset,
    value: point.value,
    valueJson: point.json ?? null,
    upstream: group.upstream,
    dataSource: group.dataSource,
  };
}
