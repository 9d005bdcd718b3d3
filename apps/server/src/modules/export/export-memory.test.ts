import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/** The heap the export worker gets (decision 0133's cap) and an export several times that size. */
const HEAP_MB = 64;
const READINGS = 400_000;

describe('Open mHealth and Parquet export memory (decisions 0133, 0250)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'export-memory-'));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  // Parquet's data of the same readings in the same run: a sink that held a metric's rows
  // until the end (no row groups on the way) runs out of this heap (decision 0250).
  it(`writes an Open mHealth file several times larger than a ${HEAP_MB} MB heap, and the same readings as Parquet: neither output nor rows are held in memory`, async () => {
    const child = spawn(
      process.execPath,
      [
        `--max-old-space-size=${HEAP_MB}`,
        '--import',
        'tsx',
        path.join(import.meta.dirname, 'test-memory-worker.ts'),
        path.join(dir, 'work'),
        path.join(dir, 'memory.zip'),
        String(READINGS),
        'parquet',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect({ code, stderr: code === 0 ? '' : stderr.slice(-2000) }).toEqual({
      code: 0,
      stderr: '',
    });
    const { files } = JSON.parse(stdout.trim()) as {
      files: { name: string; rows: number; bytes: number }[];
    };
    const omh = files.find((file) => file.name.endsWith('-openmhealth.json'))!;
    expect(omh.rows).toBe(READINGS);
    // The file is far larger than the heap the process had.
    expect(omh.bytes).toBeGreaterThan(2 * HEAP_MB * 1024 * 1024);
    expect(files.find((file) => file.name.endsWith('-heart_rate-Data.parquet'))!.rows).toBe(
      READINGS,
    );
  }, 300_000);
});
