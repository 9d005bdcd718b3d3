/**
 * The upsert and mirror of decisions 0035 and 0112 on one chunk of a high-rate stream
 * (issue 29, decision 0220): the points one participant × metric × brand × period (a UTC
 * hour for heart rate) holds, merged with what a sync fetched for that period. Pure, so the write path can compare before
 * it writes: a re-sync of an unchanged window leaves `changed` false and the chunk row is
 * not rewritten, as the row store's `ON CONFLICT … WHERE … IS DISTINCT FROM` does today.
 */

/**
 * One point of a chunk: its instant (ms), value (null where the provider sent none, as a
 * CGM reading may), UTC offset where the provider said it, and its JSON (a CGM reading's
 * trend and status; absent or null for none).
 */
export type ChunkPoint = {
  at: number;
  value: number | null;
  offset: number | null;
  json?: unknown;
};

export type ChunkMerge = {
  /** The chunk's points after the merge, in time order, each instant once. */
  points: ChunkPoint[];
  inserted: number;
  updated: number;
  deleted: number;
  /** Whether the chunk must be written (any point inserted, updated or deleted). */
  changed: boolean;
  /**
   * Every point written or removed, before and after (an updated offset may move a point to
   * another local day): the day summary recomputes the local days they fall on.
   */
  touched: ChunkPoint[];
};

/**
 * Merges `incoming` (a sync's points of this chunk's span; several at one instant: the last
 * wins, as the service's de-duplication does) into `stored` (time order). A point counts as
 * updated only when its value, offset or JSON differs as PostgreSQL compares them (`IS
 * DISTINCT FROM` on double precision: NaN equals NaN, −0 equals 0, and the stored one stays;
 * on jsonb: key order does not matter).
 * With `mirror`, the stored points in [from, to) that `incoming` does not hold are deleted:
 * the provider's complete answer for that window no longer lists them (decision 0112).
 */
export function mergeChunk(
  stored: readonly ChunkPoint[],
  incoming: readonly ChunkPoint[],
  mirror?: { from: number; to: number },
): ChunkMerge {
  const fresh = new Map<number, ChunkPoint>();
  for (const point of incoming) fresh.set(point.at, point);
  const points: ChunkPoint[] = [];
  const touched: ChunkPoint[] = [];
  let updated = 0;
  let deleted = 0;
  for (const old of stored) {
    const next = fresh.get(old.at);
    if (next) {
      fresh.delete(old.at);
      if (samePoint(next, old)) {
        points.push(old);
      } else {
        points.push(next);
        touched.push(old, next);
        updated += 1;
      }
    } else if (mirror && old.at >= mirror.from && old.at < mirror.to) {
      touched.push(old);
      deleted += 1;
    } else {
      points.push(old);
    }
  }
  const inserted = fresh.size;
  for (const point of fresh.values()) {
    points.push(point);
    touched.push(point);
  }
  if (inserted > 0) points.sort((a, b) => a.at - b.at);
  return {
    points,
    inserted,
    updated,
    deleted,
    changed: inserted + updated + deleted > 0,
    touched,
  };
}

/** Whether a fetched point repeats a stored one: what the row store's upsert leaves alone. */
export function samePoint(a: ChunkPoint, b: ChunkPoint): boolean {
  return (
    sameValue(a.value, b.value) && a.offset === b.offset && sameJson(a.json ?? null, b.json ?? null)
  );
}

/** JSON as jsonb compares it; most points (all of heart rate) have none, so no text is made. */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === null || b === null) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}

function sameValue(a: number | null, b: number | null): boolean {
  if (a === null || b === null) return a === b;
  return sameDouble(a, b);
}

/** Equality of doubles as PostgreSQL's `=` on double precision has it. */
export function sameDouble(a: number, b: number): boolean {
  return a === b || (Number.isNaN(a) && Number.isNaN(b));
}

/**
 * JSON text with every object's keys sorted: two values PostgreSQL's jsonb holds as equal
 * (it keeps keys sorted, and parsed JSON has no duplicate keys) give the same text.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) =>
    nested !== null && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(
          Object.entries(nested as Record<string, unknown>).sort(([a], [b]) =>
            a < b ? -1 : a > b ? 1 : 0,
          ),
        )
      : nested,
  );
}
