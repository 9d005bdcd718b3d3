import { randomBytes } from 'node:crypto';
import crc32 from 'crc-32';
import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import type ExcelJS from 'exceljs';
import { useNativeCrc32 } from './export-zip';
import { sheetDrained } from './sinks/xlsx.sink';

/** CRC-32 (ISO-HDLC, as ZIP uses it) bit by bit: the reference the fast ones must match. */
function referenceCrc32(data: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (const byte of data) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return ~crc >>> 0;
}

describe('ZIP checksums (crc-32 with zlib’s native crc32)', () => {
  it('the export replaces crc-32’s buf, and it checksums like CRC-32, chained over chunks as crc32-stream calls it', () => {
    expect(useNativeCrc32()).toBe(true);
    expect((crc32.buf as { native?: boolean }).native).toBe(true);
    expect(crc32.buf(Buffer.from('123456789')) >>> 0).toBe(0xcbf43926);
    const data = randomBytes(100_003);
    // crc32-stream starts from a 4-byte Buffer (0) and then passes the running checksum.
    let running: number | Buffer = Buffer.alloc(4);
    for (let at = 0; at < data.length; at += 4096)
      running = crc32.buf(data.subarray(at, at + 4096), running as number) >>> 0;
    expect(running).toBe(referenceCrc32(data));
    expect(crc32.buf(new Uint8Array(0), 0x1234) >>> 0).toBe(0x1234);
  });
});

describe('XLSX back-pressure (exceljs sheet stream into the workbook zip)', () => {
  it('waits while the sheet’s zip entry holds more than a few MB, and goes on once it drained', async () => {
    const entry = new PassThrough();
    const sheet = { stream: { pipes: [entry] } } as unknown as ExcelJS.Worksheet;
    // A little pending data: no wait.
    entry.write(Buffer.alloc(64 << 10));
    await sheetDrained(sheet);
    // Many MB the zip has not taken yet: waits for it.
    for (let n = 0; n < 8; n += 1) entry.write(Buffer.alloc(1 << 20));
    let done = false;
    const waiting = sheetDrained(sheet).then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(done).toBe(false);
    entry.resume();
    await waiting;
    expect(done).toBe(true);
  });
});
