/**
 * Deterministic randomness. Every generated value is a pure function of (account id, time
 * slot), so any range can be generated on demand, in any order, and gives the same data
 * after a restart.
 */

/** 32-bit FNV-1a hash of the parts joined with '|'. */
export function hashParts(...parts: Array<string | number>): number {
  const text = parts.join('|');
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return mix32(hash >>> 0);
}

/** A small, fast PRNG (mulberry32) seeded from the parts; returns floats in [0, 1). */
export function seededRandom(...parts: Array<string | number>): () => number {
  let state = hashParts(...parts);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** Standard normal sample (Box–Muller) from a uniform source. */
export function gaussian(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
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

/** Lowercase hex string of `length` characters derived from the parts (64 bits of seed). */
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

function knotValue(seed: number, knot: number): number {
  return (mix32((seed ^ Math.imul(knot | 0, 0x9e3779b1)) >>> 0) / 4_294_967_296) * 2 - 1;
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
