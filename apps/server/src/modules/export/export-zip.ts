import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import zlib from 'node:zlib';
import { ZipArchive } from 'archiver';
import crc32 from 'crc-32';
import { ExportCancelled } from './export-plan';

/** Bytes of a streamed entry between two progress reports (heartbeat and cancel check). */
const REPORT_EVERY_BYTES = 4 << 20;
/** Bytes handed to the ZIP at a time (and the deflate stream's output buffer). */
const BATCH_BYTES = 1 << 20;

/**
 * The ZIP being written: entries one at a time from streams (back-pressure from the file
 * down to the database socket), each hashed and counted on the way into the archive.
 */
export class ZipWriter {
  private readonly archive: ZipArchive;
  private readonly output: fs.WriteStream;
  private readonly done: Promise<void>;

  constructor(
    zipPath: string,
    private readonly date: Date,
    level: number,
  ) {
    this.archive = new ZipArchive({ zlib: { level, chunkSize: BATCH_BYTES } });
    this.output = fs.createWriteStream(zipPath);
    this.done = new Promise<void>((resolve, reject) => {
      this.output.on('close', () => resolve());
      this.output.on('error', reject);
      this.archive.on('error', reject);
      this.archive.on('warning', reject);
    });
    // Observed by whoever waits on an entry or the end; an abort must not surface twice.
    this.done.catch(() => undefined);
    this.archive.pipe(this.output);
  }

  /**
   * Adds `source` as the entry `name` and resolves once it is in the archive, with its
   * size and SHA-256. `report(bytes)` runs every few MB; false stops with ExportCancelled.
   */
  async appendStream(
    name: string,
    source: Readable,
    options: { store?: boolean; report?: (bytes: number) => Promise<boolean> },
  ): Promise<{ bytes: number; sha256: string }> {
    const hash = createHash('sha256');
    let bytes = 0;
    let reported = 0;
    const report = options.report;
    // Chunks from the database socket are small (tens of KB); each one that reaches the
    // deflate stream and the file costs a thread-pool round trip, so they go on in batches.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    const take = () => {
      const batch = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      return batch;
    };
    const tap = new Transform({
      transform(chunk: Buffer | string, _encoding, callback) {
        const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
        hash.update(buffer);
        bytes += buffer.length;
        pending.push(buffer);
        pendingBytes += buffer.length;
        if (pendingBytes < BATCH_BYTES) return callback();
        if (!report || bytes - reported < REPORT_EVERY_BYTES) return callback(null, take());
        reported = bytes;
        report(bytes).then(
          (goOn) => (goOn ? callback(null, take()) : callback(new ExportCancelled())),
          callback,
        );
      },
      flush(callback) {
        callback(null, pendingBytes > 0 ? take() : undefined);
      },
    });
    const appended = new Promise<void>((resolve, reject) => {
      const onEntry = (entry: { name: string }) => {
        if (entry.name !== name) return;
        this.archive.off('entry', onEntry);
        resolve();
      };
      this.archive.on('entry', onEntry);
      this.done.catch(reject);
    });
    this.archive.append(tap, { name, date: this.date, store: options.store ?? false });
    await Promise.all([pipeline(source, tap), appended]);
    return { bytes, sha256: hash.digest('hex') };
  }

  /** Writes the central directory and closes the file. */
  async finish(): Promise<void> {
    await Promise.all([this.archive.finalize(), this.done]);
  }

  /** Stops writing (cancel or failure); the caller removes the part file. */
  abort(): void {
    this.archive.abort();
    this.output.destroy();
  }
}

/**
 * archiver checksums every entry (crc32-stream) with crc-32's JavaScript `buf`, about a
 * tenth of a large export's CPU; zlib's native crc32 (Node ≥ 20.15) gives the same numbers
 * several times faster. crc-32 is one shared CommonJS module, so its `buf` is replaced for
 * every user of it in the process, with the same results (export-writer.test.ts).
 */
export function useNativeCrc32(): boolean {
  const native = (zlib as { crc32?: (data: Uint8Array, value?: number) => number }).crc32;
  if (typeof native !== 'function') return false;
  const nativeBuf: typeof crc32.buf & { native?: true } = (data, seed) =>
    native(
      data instanceof Uint8Array ? data : Uint8Array.from(data),
      typeof seed === 'number' ? seed >>> 0 : 0,
    ) | 0;
  nativeBuf.native = true;
  crc32.buf = nativeBuf;
  return true;
}
useNativeCrc32();
