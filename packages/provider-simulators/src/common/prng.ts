/**
 * Deterministic randomness for the simulators. Every generated value is derived from a
 * string seed (account id, day, purpose), never from Math.random, so the same request gives
 * the same data on every run and after every restart, and any range can be generated on
 * demand in any order.
 *
 * One generator (mulberry32) and one seed hash (FNV-1a, avalanche-mixed) behind two front
 * doors: `createRng` (an object with helpers; Fitbit and Google Health) and `seededRandom`
 * plus `hashParts` (a bare function; Omron and Dexcom). The two join their seed parts with
 * different separators, which is all that keeps each provider's generated data as it was.
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
  const next = mulberry32(seedOf(...seedParts));
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: (min, max) => min + next() * (max - min),
    normal: (mean = 0, sd = 1) => {
      // Box–Muller as in gaussian(), multiplied in this order so Fitbit data stays identical.
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
  return fnv1aMixed(parts.join('\u0001'));
}

/** The same seed hash with the parts joined by '|' (the Omron and Dexcom models' seeds). */
export function hashParts(...parts: Array<string | number>): number {
  return fnv1aMixed(parts.join('|'));
}

/** A bare generator of floats in [0, 1) seeded by `hashParts(...parts)`. */
export function seededRandom(...parts: Array<string | number>): () => number {
  return mulberry32(hashParts(...parts));
}

/** Standard normal sample (Box–Muller) from a uniform source. */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
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

/**
 * Smooth value noise in [-1, 1]: random values at integer knots, cosine-interpolated in
 * between. Random access in `x`, which is what lazy range generation needs. `seed` comes
 * from `hashParts`, once per series, because this runs for every generated sample.
 */
export function valueNoise(seed: number, x: number): number {
  const knot = Math.floor(x);
  const fraction = x - knot;
  const a = knotValue(seed, knot);
  const b = knotValue(seed, knot + 1);
  const weight = (1 - Math.cos(Math.PI * fraction)) / 2;
  return a + (b - a) * weight;
}

/**
 * Lowercase hex string of `length` characters derived from the parts (64 bits of seed),
 * stateless: unlike `deterministicHex` it needs no generator per call.
 */
export function hexFromParts(length: number, ...parts: Array<string | number>): string {
  const a = hashParts(...parts);
  const b = hashParts('second', ...parts);
  let out = '';
  for (let i = 0; out.length < length; i++) {
    const word =
      mix32((a + Math.imul(i + 1, 0x9e3779b1)) >>> 0) ^
      mix32((b ^ Math.imul(i + 7, 0x85ebca6b)) >>> 0);
    out += (word >>> 0).toString(16).padStart(8, '0');
  }
  return out.slice(0, length);
}

/** A UUID-formatted (version 4 layout) identifier derived from the parts. */
export function uuidFromParts(...parts: Array<string | number>): string {
  const hex = hexFromParts(32, ...parts);
  const variant = ((parseInt(hex[16] ?? '0', 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** mulberry32: a small, fast 32-bit generator; floats in [0, 1). */
function mulberry32(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a over the text, then the murmur3 finalizer so nearby seeds spread apart. */
function fnv1aMixed(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return mix32(hash >>> 0);
}

function knotValue(seed: number, knot: number): number {
  return (mix32((seed ^ Math.imul(knot | 0, 0x9e3779b1)) >>> 0) / 4294967296) * 2 - 1;
}

function mix32(value: number): number {
  let h = value;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
