/**
 * A byte format for one chunk of a high-rate stream, measured by chunk-storage.ts against
 * value arrays (issue 29): the points of one participant × metric × brand × period as one
 * `bytea`, about one byte per 5-second heart-rate point before TOAST compression. Decision
 * 0220 stores arrays instead (SQL can unnest them; nothing in SQL can read this format), so
 * this lives with the bench as the measured alternative, not in the product.
 *
 * Lossless for what a high-rate point carries: its instant (milliseconds, as `Date` holds
 * it), a finite or non-finite double value, and its UTC offset in minutes or null. Points
 * are given in time order, each instant once; the caller keeps the period's start, and
 * every instant is at or after it.
 *
 * Layout (all integers unsigned LEB128 varints; signed ones zig-zagged first):
 * - version (1 byte, 1), point count;
 * - times: unit in ms (the gcd of every step and of the first point's offset from the
 *   start, so regular 5-second data counts in fives of seconds), a layout byte, then either
 *   runs of regularly spaced points, each `gap` (units from the previous run's last point,
 *   or from the start), `step`, `count` — a day of regular samples with a few off-wrist
 *   gaps is a handful of runs — or, when smaller (jittered steps), each point's step;
 * - values: a mode byte (0: integers; 1–9: decimals with that many digits; 255: raw float64
 *   little-endian), then zig-zag deltas of the scaled integers, or the raw doubles;
 * - offsets: runs of `offset + 1` zig-zagged (0 for null) and `count`.
 */

export type ChunkPoints = {
  /** Instants in ms since the epoch, strictly increasing. */
  times: readonly number[];
  values: readonly number[];
  /** UTC offset in minutes at each point, or null where the provider did not say. */
  offsets: readonly (number | null)[];
};

const FORMAT_VERSION = 1;
const FLOAT_MODE = 255;
const TIMES_AS_RUNS = 0;
const TIMES_AS_DELTAS = 1;
/** Decimals tried before a value column falls back to raw doubles. */
const MAX_DECIMALS = 9;
/** Scaled integers stay within ±2^50, so their zig-zagged deltas stay safe integers. */
const MAX_SCALED = 2 ** 50;

/**
 * Encodes a chunk's points. Throws a RangeError for points out of order, before `startMs`,
 * or columns of unequal length (a caller bug, never data to store).
 */
export function encodeChunk(startMs: number, points: ChunkPoints): Uint8Array {
  const { times, values, offsets } = points;
  const count = times.length;
  if (values.length !== count || offsets.length !== count)
    throw new RangeError('chunk columns differ in length');
  for (let index = 0; index < count; index += 1) {
    const time = times[index]!;
    const previous = index === 0 ? startMs - 1 : times[index - 1]!;
    if (!Number.isSafeInteger(time) || time <= previous)
      throw new RangeError(`chunk point ${index} is out of order or before the chunk's start`);
  }
  const out = new ByteWriter(16 + count * 2);
  out.byte(FORMAT_VERSION);
  out.varint(count);
  writeTimes(out, startMs, times);
  writeValues(out, values);
  writeOffsets(out, offsets);
  return out.bytes();
}

/** Decodes what `encodeChunk(startMs, …)` wrote. Throws a RangeError on bytes it cannot read. */
export function decodeChunk(startMs: number, bytes: Uint8Array): ChunkPoints {
  const input = new ByteReader(bytes);
  const version = input.byte();
  if (version !== FORMAT_VERSION) throw new RangeError(`unknown chunk format ${version}`);
  const count = input.varint();
  const times = readTimes(input, startMs, count);
  const values = readValues(input, count);
  const offsets = readOffsets(input, count);
  if (!input.done()) throw new RangeError('chunk has trailing bytes');
  return { times, values, offsets };
}

function writeTimes(out: ByteWriter, startMs: number, times: readonly number[]): void {
  let unit = 0;
  let previous = startMs;
  for (const time of times) {
    unit = gcd(unit, time - previous);
    previous = time;
  }
  unit = Math.max(unit, 1);
  out.varint(unit);
  // Both layouts are cheap to build; the smaller one is kept (runs for regular sampling,
  // plain deltas for jittered steps, where runs would hold one or two points each).
  const runs = timeRuns(startMs, times, unit);
  const deltas = new ByteWriter(times.length + 8);
  previous = startMs;
  for (const time of times) {
    deltas.varint((time - previous) / unit);
    previous = time;
  }
  const deltaBytes = deltas.bytes();
  if (runs.length < deltaBytes.length) {
    out.byte(TIMES_AS_RUNS);
    out.append(runs);
  } else {
    out.byte(TIMES_AS_DELTAS);
    out.append(deltaBytes);
  }
}

/** Runs of equal steps, greedy: a run takes every following point at its step. */
function timeRuns(startMs: number, times: readonly number[], unit: number): Uint8Array {
  const runs: [gap: number, step: number, count: number][] = [];
  let last = startMs;
  let index = 0;
  while (index < times.length) {
    const first = times[index]!;
    const step = index + 1 < times.length ? times[index + 1]! - first : 0;
    let end = index + 1;
    while (end < times.length && times[end]! - times[end - 1]! === step) end += 1;
    runs.push([(first - last) / unit, step / unit, end - index]);
    last = times[end - 1]!;
    index = end;
  }
  const out = new ByteWriter(runs.length * 4 + 8);
  out.varint(runs.length);
  for (const [gap, step, runCount] of runs) {
    out.varint(gap);
    out.varint(step);
    out.varint(runCount);
  }
  return out.bytes();
}

function readTimes(input: ByteReader, startMs: number, count: number): number[] {
  const unit = input.varint();
  const layout = input.byte();
  const times = new Array<number>(count);
  if (layout === TIMES_AS_DELTAS) {
    let time = startMs;
    for (let index = 0; index < count; index += 1) {
      time += input.varint() * unit;
      times[index] = time;
    }
    return times;
  }
  if (layout !== TIMES_AS_RUNS) throw new RangeError(`unknown chunk time layout ${layout}`);
  const runs = input.varint();
  let filled = 0;
  let last = startMs;
  for (let run = 0; run < runs; run += 1) {
    const gap = input.varint() * unit;
    const step = input.varint() * unit;
    const runCount = input.varint();
    if (filled + runCount > count) throw new RangeError('chunk runs exceed its point count');
    let time = last + gap;
    for (let k = 0; k < runCount; k += 1) {
      times[filled] = time;
      filled += 1;
      last = time;
      time += step;
    }
  }
  if (filled !== count) throw new RangeError('chunk runs fall short of its point count');
  return times;
}

function writeValues(out: ByteWriter, values: readonly number[]): void {
  const decimals = decimalsOf(values);
  if (decimals === null) {
    out.byte(FLOAT_MODE);
    for (const value of values) out.float64(value);
    return;
  }
  out.byte(decimals);
  const scale = 10 ** decimals;
  let previous = 0;
  for (const value of values) {
    const scaled = Math.round(value * scale);
    out.varint(zigzag(scaled - previous));
    previous = scaled;
  }
}

function readValues(input: ByteReader, count: number): number[] {
  const mode = input.byte();
  const values = new Array<number>(count);
  if (mode === FLOAT_MODE) {
    for (let index = 0; index < count; index += 1) values[index] = input.float64();
    return values;
  }
  if (mode > MAX_DECIMALS) throw new RangeError(`unknown chunk value mode ${mode}`);
  const scale = 10 ** mode;
  let scaled = 0;
  for (let index = 0; index < count; index += 1) {
    scaled += unzigzag(input.varint());
    values[index] = mode === 0 ? scaled : scaled / scale;
  }
  return values;
}

/**
 * The fewest decimals (0–9) at which every value round-trips exactly through a scaled
 * integer (`Math.round(v × 10^d) / 10^d === v`), or null (raw doubles: −0, NaN, ±∞, more
 * digits, or too large).
 */
function decimalsOf(values: readonly number[]): number | null {
  for (let decimals = 0; decimals <= MAX_DECIMALS; decimals += 1) {
    const scale = 10 ** decimals;
    let exact = true;
    for (const value of values) {
      if (Object.is(value, -0) || !Number.isFinite(value)) return null;
      const scaled = Math.round(value * scale);
      if (Math.abs(scaled) > MAX_SCALED || (decimals === 0 ? scaled : scaled / scale) !== value) {
        exact = false;
        break;
      }
    }
    if (exact) return decimals;
  }
  return null;
}

function writeOffsets(out: ByteWriter, offsets: readonly (number | null)[]): void {
  const runs: [code: number, count: number][] = [];
  for (const offset of offsets) {
    if (offset !== null && !Number.isSafeInteger(offset))
      throw new RangeError(`chunk offset ${offset} is not whole minutes`);
    const code = offset === null ? 0 : zigzag(offset) + 1;
    const last = runs.at(-1);
    if (last && last[0] === code) last[1] += 1;
    else runs.push([code, 1]);
  }
  out.varint(runs.length);
  for (const [code, runCount] of runs) {
    out.varint(code);
    out.varint(runCount);
  }
}

function readOffsets(input: ByteReader, count: number): (number | null)[] {
  const runs = input.varint();
  const offsets = new Array<number | null>(count);
  let filled = 0;
  for (let run = 0; run < runs; run += 1) {
    const code = input.varint();
    const runCount = input.varint();
    if (filled + runCount > count) throw new RangeError('chunk offsets exceed its point count');
    const offset = code === 0 ? null : unzigzag(code - 1);
    offsets.fill(offset, filled, filled + runCount);
    filled += runCount;
  }
  if (filled !== count) throw new RangeError('chunk offsets fall short of its point count');
  return offsets;
}

function gcd(a: number, b: number): number {
  let x = Math.abs(a);
  let y = Math.abs(b);
  while (y !== 0) [x, y] = [y, x % y];
  return x;
}

/** Signed to unsigned, small magnitudes small (arithmetic: values exceed 32 bits). */
function zigzag(value: number): number {
  return value >= 0 ? value * 2 : -value * 2 - 1;
}

function unzigzag(value: number): number {
  return value % 2 === 0 ? value / 2 : -(value + 1) / 2;
}

class ByteWriter {
  private buffer: Uint8Array;
  private length = 0;

  constructor(capacity: number) {
    this.buffer = new Uint8Array(Math.max(capacity, 16));
  }

  byte(value: number): void {
    this.reserve(1);
    this.buffer[this.length] = value;
    this.length += 1;
  }

  varint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0)
      throw new RangeError(`varint out of range: ${value}`);
    this.reserve(8);
    let rest = value;
    while (rest >= 0x80) {
      this.buffer[this.length] = (rest % 0x80) | 0x80;
      this.length += 1;
      rest = Math.floor(rest / 0x80);
    }
    this.buffer[this.length] = rest;
    this.length += 1;
  }

  append(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.buffer.set(bytes, this.length);
    this.length += bytes.length;
  }

  float64(value: number): void {
    this.reserve(8);
    new DataView(this.buffer.buffer).setFloat64(this.length, value, true);
    this.length += 8;
  }

  bytes(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }

  private reserve(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = new Uint8Array(Math.max(this.buffer.length * 2, this.length + extra));
    grown.set(this.buffer.subarray(0, this.length));
    this.buffer = grown;
  }
}

class ByteReader {
  private position = 0;
  private readonly view: DataView;

  constructor(private readonly buffer: Uint8Array) {
    this.view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  }

  byte(): number {
    if (this.position >= this.buffer.length) throw new RangeError('chunk ends early');
    const value = this.buffer[this.position]!;
    this.position += 1;
    return value;
  }

  varint(): number {
    let value = 0;
    let factor = 1;
    for (;;) {
      const next = this.byte();
      value += (next & 0x7f) * factor;
      if (next < 0x80) break;
      factor *= 0x80;
      if (factor > 2 ** 56) throw new RangeError('chunk varint too long');
    }
    return value;
  }

  float64(): number {
    if (this.position + 8 > this.buffer.length) throw new RangeError('chunk ends early');
    const value = this.view.getFloat64(this.position, true);
    this.position += 8;
    return value;
  }

  done(): boolean {
    return this.position === this.buffer.length;
  }
}
