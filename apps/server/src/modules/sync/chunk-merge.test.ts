import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { mergeChunk, type ChunkPoint } from './chunk-merge';

const HOUR_START = Date.UTC(2026, 10, 20, 9);
const CET = 60;

/** A deterministic pseudo-random source (mulberry32): every run checks the same cases. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** `=` on double precision in PostgreSQL: NaN equals NaN, −0 equals 0; NULL only as NULL. */
function equalInPostgres(a: number | null, b: number | null): boolean {
  return a === b || (a !== null && b !== null && Number.isNaN(a) && Number.isNaN(b));
}

/** `IS NOT DISTINCT FROM` on jsonb: objects equal whatever their keys' order. */
function sameJson(a: ChunkPoint, b: ChunkPoint): boolean {
  return isDeepStrictEqual(a.json ?? null, b.json ?? null);
}

/** An hour of 5-second heart rate. */
function hourOfHeartRate(bpm: (index: number) => number = (index) => 60 + (index % 30)) {
  return Array.from({ length: 720 }, (_, index) => ({
    at: HOUR_START + index * 5000,
    value: bpm(index),
    offset: CET,
  }));
}

/**
 * What the row store does with the same input (readings.repository upsertBatch and
 * deleteAbsent): one row per instant, last input wins, a row is updated only when a column
 * is distinct (NaN = NaN and −0 = 0 in PostgreSQL), the mirror deletes stored rows of its
 * window the input does not hold.
 */
function rowStoreReference(
  stored: readonly ChunkPoint[],
  incoming: readonly ChunkPoint[],
  mirror?: { from: number; to: number },
) {
  const rows = new Map(stored.map((point) => [point.at, point]));
  const input = new Map(incoming.map((point) => [point.at, point]));
  let inserted = 0;
  let updated = 0;
  let deleted = 0;
  if (mirror) {
    for (const at of [...rows.keys()]) {
      if (at >= mirror.from && at < mirror.to && !input.has(at)) {
        rows.delete(at);
        deleted += 1;
      }
    }
  }
  for (const point of input.values()) {
    const old = rows.get(point.at);
    if (!old) inserted += 1;
    else if (
      !equalInPostgres(old.value, point.value) ||
      old.offset !== point.offset ||
      !sameJson(old, point)
    )
      updated += 1;
    else continue;
    rows.set(point.at, point);
  }
  return {
    points: [...rows.values()].sort((a, b) => a.at - b.at),
    inserted,
    updated,
    deleted,
  };
}

describe('merging a sync into a chunk', () => {
  it('a re-sync of an unchanged window changes nothing, mirrored or not', () => {
    const stored = hourOfHeartRate();
    const again = stored.map((point) => ({ ...point }));
    for (const mirror of [undefined, { from: HOUR_START, to: HOUR_START + 3_600_000 }]) {
      const merge = mergeChunk(stored, again, mirror);
      expect(merge).toMatchObject({ inserted: 0, updated: 0, deleted: 0, changed: false });
      expect(merge.touched).toEqual([]);
      expect(merge.points).toEqual(stored);
    }
  });

  it('an edited value or offset updates that point and touches it before and after', () => {
    const stored = hourOfHeartRate();
    const edited = stored.map((point, index) =>
      index === 10 ? { ...point, value: 150 } : index === 20 ? { ...point, offset: -300 } : point,
    );
    const merge = mergeChunk(stored, edited);
    expect(merge).toMatchObject({ inserted: 0, updated: 2, deleted: 0, changed: true });
    expect(merge.points).toEqual(edited);
    expect(merge.touched).toEqual([stored[10], edited[10], stored[20], edited[20]]);
  });

  it('the mirror deletes the stored points of its window the provider no longer lists, only there', () => {
    const stored = hourOfHeartRate();
    // The provider withdrew two points: one inside the mirrored half hour, one before it.
    const answer = stored.filter((_, index) => index !== 100 && index !== 500);
    const mirror = { from: HOUR_START + 1_800_000, to: HOUR_START + 3_600_000 };
    const merge = mergeChunk(stored, answer, mirror);
    expect(merge).toMatchObject({ inserted: 0, updated: 0, deleted: 1, changed: true });
    expect(merge.points).toEqual(stored.filter((_, index) => index !== 500));
    expect(merge.touched).toEqual([stored[500]]);
    // Without a mirror (an upsert-only source) nothing is deleted.
    expect(mergeChunk(stored, answer)).toMatchObject({ deleted: 0, changed: false });
  });

  it('compares values as PostgreSQL does: 0 over a stored −0, NaN over NaN change nothing', () => {
    const stored = [
      { at: HOUR_START, value: -0, offset: CET },
      { at: HOUR_START + 5000, value: NaN, offset: CET },
    ];
    const merge = mergeChunk(stored, [
      { at: HOUR_START, value: 0, offset: CET },
      { at: HOUR_START + 5000, value: NaN, offset: CET },
    ]);
    expect(merge).toMatchObject({ updated: 0, changed: false });
    expect(Object.is(merge.points[0]!.value, -0)).toBe(true);
  });

  it('new points are inserted in time order; the last of one instant wins', () => {
    const stored = hourOfHeartRate().filter((_, index) => index % 2 === 0);
    const incoming = [
      { at: HOUR_START + 5000, value: 80, offset: CET },
      { at: HOUR_START + 5000, value: 81, offset: CET },
      { at: HOUR_START + 3000, value: 82, offset: null },
    ];
    const merge = mergeChunk(stored, incoming);
    expect(merge).toMatchObject({ inserted: 2, updated: 0, deleted: 0, changed: true });
    expect(merge.points.slice(0, 4)).toEqual([
      stored[0],
      { at: HOUR_START + 3000, value: 82, offset: null },
      { at: HOUR_START + 5000, value: 81, offset: CET },
      stored[1],
    ]);
  });

  it('a CGM point without a value keeps its JSON; JSON compares as jsonb, whatever the key order', () => {
    const stored: ChunkPoint[] = [
      { at: HOUR_START, value: null, offset: CET, json: { trend: 'flat', status: 'low' } },
      { at: HOUR_START + 300_000, value: 110, offset: CET, json: { trend: 'flat', status: null } },
      { at: HOUR_START + 600_000, value: 112, offset: CET },
    ];
    const again: ChunkPoint[] = [
      { at: HOUR_START, value: null, offset: CET, json: { status: 'low', trend: 'flat' } },
      { at: HOUR_START + 300_000, value: 110, offset: CET, json: { status: null, trend: 'flat' } },
      { at: HOUR_START + 600_000, value: 112, offset: CET, json: null },
    ];
    expect(mergeChunk(stored, again)).toMatchObject({ updated: 0, changed: false });
    const edited: ChunkPoint[] = [
      { at: HOUR_START, value: 40, offset: CET, json: { trend: 'flat', status: 'low' } },
      {
        at: HOUR_START + 300_000,
        value: 110,
        offset: CET,
        json: { trend: 'singleUp', status: null },
      },
      { at: HOUR_START + 600_000, value: 112, offset: CET, json: { trend: 'flat' } },
    ];
    const merge = mergeChunk(stored, edited);
    expect(merge).toMatchObject({ inserted: 0, updated: 3, deleted: 0, changed: true });
    expect(merge.points).toEqual(edited);
  });

  it('answers as the row store does for any stored chunk, sync and mirror (3,000 generated cases)', () => {
    const next = random(29);
    const values = [60, 61, 62, -0, 0, NaN, 72.5, null];
    const offsets = [CET, -300, null];
    const jsons = [
      undefined,
      null,
      { trend: 'flat' },
      { trend: 'up', rate: 1.5 },
      { rate: 1.5, trend: 'up' },
    ];
    const pick = <T>(choices: readonly T[]) => choices[Math.floor(next() * choices.length)]!;
    const jsonOf = () => {
      const json = pick(jsons);
      return json === undefined ? {} : { json };
    };
    for (let round = 0; round < 3000; round += 1) {
      const slots = 1 + Math.floor(next() * 60);
      const at = (slot: number) => HOUR_START + slot * 5000;
      const stored: ChunkPoint[] = [];
      for (let slot = 0; slot < slots; slot += 1)
        if (next() < 0.6)
          stored.push({ at: at(slot), value: pick(values), offset: pick(offsets), ...jsonOf() });
      const incoming: ChunkPoint[] = [];
      for (let count = Math.floor(next() * slots * 1.5); count > 0; count -= 1)
        incoming.push({
          at: at(Math.floor(next() * slots)),
          value: pick(values),
          offset: pick(offsets),
          ...jsonOf(),
        });
      const from = at(Math.floor(next() * slots));
      const mirror =
        next() < 0.5 ? { from, to: from + Math.floor(next() * slots) * 5000 } : undefined;

      const merge = mergeChunk(stored, incoming, mirror);
      const expected = rowStoreReference(stored, incoming, mirror);
      expect(merge.points).toEqual(expected.points);
      expect({ inserted: merge.inserted, updated: merge.updated, deleted: merge.deleted }).toEqual({
        inserted: expected.inserted,
        updated: expected.updated,
        deleted: expected.deleted,
      });
      expect(merge.changed).toBe(expected.inserted + expected.updated + expected.deleted > 0);
      // Every point whose row the store would write or delete is touched.
      const before = new Map(stored.map((point) => [point.at, point]));
      const after = new Map(expected.points.map((point) => [point.at, point]));
      for (const instant of new Set([...before.keys(), ...after.keys()])) {
        const old = before.get(instant);
        const now = after.get(instant);
        const same =
          old &&
          now &&
          equalInPostgres(old.value, now.value) &&
          old.offset === now.offset &&
          sameJson(old, now);
        if (!same) expect(merge.touched.some((point) => point.at === instant)).toBe(true);
      }
    }
  });
});
