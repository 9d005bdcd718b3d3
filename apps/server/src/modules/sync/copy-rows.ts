import { Readable } from 'node:stream';
import type { Connection as PgConnection } from 'pg';

/** Bytes per chunk the stream hands on (rows are copied into buffers of this size). */
export const COPY_ROWS_CHUNK = 1 << 20;

const ERROR_RESPONSE = 0x45; // E
const COPY_OUT_RESPONSE = 0x48; // H
const COPY_DATA = 0x64; // d
const NOTIFICATION_RESPONSE = 0x41; // A
const NOTICE_RESPONSE = 0x4e; // N
const PARAMETER_STATUS = 0x53; // S

/** What this uses of node-postgres's connection (not in its types): the socket and the simple query. */
type Connection = {
  stream: Readable;
  query(text: string): void;
};

/**
 * `COPY (…) TO STDOUT` as a node-postgres submittable (`client.query(copyRows(…))`) that
 * reads the CopyData messages straight off the connection, like pg-copy-streams, and
 * writes `prefix` before every row: PostgreSQL sends each row of a COPY TO as one CopyData
 * message, so a row's start needs no scanning for line ends (nor quotes: a quoted cell may
 * hold a line end). Rows are copied into 1 MB buffers, one object per MB instead of one or
 * two per row, which is most of what the generic stream spends on a large export. The
 * socket is read only as fast as the consumer takes the buffers (back-pressure).
 *
 * The caller must not reuse the connection after a stream that ended early (destroyed or
 * failed): it is left mid-protocol.
 */
export function copyRows(text: string, prefix: Buffer): CopyRowsQuery {
  return new CopyRowsQuery(text, prefix);
}

export class CopyRowsQuery extends Readable {
  /** Rows (CopyData messages) read so far; all of them once the stream has ended. */
  rows = 0;
  /** Resolves on ReadyForQuery: the connection is free again. */
  readonly ready: Promise<void>;
  private resolveReady!: () => void;
  private connection: Connection | null = null;
  private pgDataHandler: ((chunk: Buffer) => void) | null = null;
  private readonly onReadable = () => this.forward();
  private forwarding = false;
  private wanted = false;
  // Parser state: a message header (code + length) may arrive split over socket chunks.
  private readonly header = Buffer.alloc(5);
  private headerBytes = 0;
  /** Bytes left of the current message's body; its code says whether to keep them. */
  private remaining = 0;
  private code = 0;
  private out = Buffer.allocUnsafe(COPY_ROWS_CHUNK);
  private outBytes = 0;

  constructor(
    private readonly text: string,
    private readonly prefix: Buffer,
  ) {
    super({ highWaterMark: COPY_ROWS_CHUNK });
    this.ready = new Promise<void>((resolve) => (this.resolveReady = resolve));
  }

  /** node-postgres: the query's turn on the connection. */
  submit(pgConnection: PgConnection): void {
    const connection = pgConnection as unknown as Connection;
    this.connection = connection;
    const stream = connection.stream;
    const [handler, ...others] = stream.listeners('data') as ((chunk: Buffer) => void)[];
    if (!handler || others.length > 0) throw new Error('copyRows: unexpected connection listeners');
    this.pgDataHandler = handler;
    stream.removeListener('data', handler);
    stream.pause();
    stream.on('readable', this.onReadable);
    connection.query(this.text);
  }

  handleError(error: Error): void {
    this.destroy(error);
  }

  handleCommandComplete(): void {}

  handleReadyForQuery(): void {
    this.resolveReady();
  }

  override _read(): void {
    this.wanted = true;
    this.forward();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    // Ends before CopyDone leave the socket mid-protocol: the caller closes the connection.
    this.resolveReady();
    callback(error);
  }

  private forward(): void {
    if (this.forwarding || !this.wanted || !this.connection || !this.pgDataHandler) return;
    this.forwarding = true;
    const stream = this.connection.stream;
    let chunk: Buffer | null;
    while (
      this.wanted &&
      this.pgDataHandler !== null &&
      (chunk = stream.read() as Buffer | null) !== null
    )
      this.parse(chunk);
    this.forwarding = false;
  }

  /** Takes the rows out of one socket chunk; at CopyDone or an error hands the rest back to node-postgres. */
  private parse(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length) {
      if (this.remaining === 0) {
        // A message header: code and length (which counts itself).
        let code: number;
        let length: number;
        if (this.headerBytes === 0 && chunk.length - at >= 5) {
          code = chunk[at]!;
          length = chunk.readUInt32BE(at + 1);
          at += 5;
        } else {
          const take = Math.min(5 - this.headerBytes, chunk.length - at);
          chunk.copy(this.header, this.headerBytes, at, at + take);
          this.headerBytes += take;
          at += take;
          if (this.headerBytes < 5) return;
          this.headerBytes = 0;
          code = this.header[0]!;
          length = this.header.readUInt32BE(1);
        }
        if (code === COPY_DATA) {
          this.rows += 1;
          this.append(this.prefix, 0, this.prefix.length);
        } else if (
          code !== COPY_OUT_RESPONSE &&
          code !== NOTICE_RESPONSE &&
          code !== NOTIFICATION_RESPONSE &&
          code !== PARAMETER_STATUS
        ) {
          // CopyDone, or an ErrorResponse: node-postgres reads the rest (CommandComplete and
          // ReadyForQuery, or the error), starting with this message's header.
          const header = Buffer.alloc(5);
          header[0] = code;
          header.writeUInt32BE(length, 1);
          this.finish(Buffer.concat([header, chunk.subarray(at)]), code !== ERROR_RESPONSE);
          return;
        }
        this.code = code;
        this.remaining = length - 4;
        continue;
      }
      const take = Math.min(this.remaining, chunk.length - at);
      if (this.code === COPY_DATA) this.append(chunk, at, at + take);
      this.remaining -= take;
      at += take;
    }
  }

  private append(source: Buffer, start: number, end: number): void {
    while (start < end) {
      const take = Math.min(end - start, this.out.length - this.outBytes);
      source.copy(this.out, this.outBytes, start, start + take);
      this.outBytes += take;
      start += take;
      if (this.outBytes === this.out.length) this.flush();
    }
  }

  private flush(): void {
    if (this.outBytes === 0) return;
    const full = this.out.subarray(0, this.outBytes);
    this.out = Buffer.allocUnsafe(COPY_ROWS_CHUNK);
    this.outBytes = 0;
    if (!this.push(full)) this.wanted = false;
  }

  private finish(rest: Buffer, complete: boolean): void {
    const stream = this.connection!.stream;
    const handler = this.pgDataHandler!;
    this.pgDataHandler = null;
    stream.removeListener('readable', this.onReadable);
    stream.on('data', handler);
    if (complete) {
      this.flush();
      this.push(null);
    }
    handler(rest);
    // Like pg-copy-streams: the stream may have been paused while it was ours.
    process.nextTick(() => stream.resume());
  }
}
