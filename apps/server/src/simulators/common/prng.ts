/**
 * Deterministic randomness for the simulators. Every generated value is derived from a
 * string seed (account id, day, purpose), never from Math.random, so the same request gives
 * the same data on every run and after every restart.
 */

/** A small seeded pseudo-random generator (mulberry32) with the helpers the models need. */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max] (both inclusive). */
  int(min: number, max: number): number;
  /** Uniform in [min, max). */
  float(min: number, max: number): number;
  /** Normally distributed (Box–Muller). */
  normal(mean?: number, sd?: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
}

/** Creates a generator seeded by the given parts, e.g. `createRng(accountId, 'sleep', date)`. */
export function createRng(...seedParts: Array<string | number>): Rng {
  let state = seedOf(...seedParts);
  const next = () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: (min, max) => min + next() * (max - min),
    normal: (mean = 0, sd = 1) => {
      const u = Math.max(next(), 1e-12);
      const v = next();
      return mean + sd * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    },
    chance: (probability) => next() < probability,
    pick: (items) => {
      const item = items[Math.floor(next() * items.length)];
      if (item === undefined) throw new Error('pick() needs a non-empty list');
      return item;
    },
  };
}

/** A 32-bit seed from several parts (FNV-1a over the joined text, then avalanche-mixed). */
export function seedOf(...parts: Array<string | number>): number {
  const text = parts.join('\u0001');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  hash ^= hash >>> 16;
  hash = Math.imul(hash, 0x85ebca6b);
  hash ^= hash >>> 13;
  hash = Math.imul(hash, 0xc2b2ae35);
  hash ^= hash >>> 16;
  return hash >>> 0;
}

/** A stateless uniform value in [0, 1) for the given parts. */
export function unitHash(...parts: Array<string | number>): number {
  return seedOf(...parts) / 4294967296;
}

/** A deterministic string of decimal digits (first digit never 0), e.g. for numeric ids. */
export function deterministicDigits(length: number, ...parts: Array<string | number>): string {
  const rng = createRng('digits', ...parts);
  let out = String(rng.int(1, 9));
  while (out.length < length) out += String(rng.int(0, 9));
  return out;
}

/** A deterministic lowercase hex string, e.g. for MAC addresses or hashed ids. */
export function deterministicHex(length: number, ...parts: Array<string | number>): string {
  const rng = createRng('hex', ...parts);
  let out = '';
  while (out.length < length) out += rng.int(0, 15).toString(16);
  return out;
}
