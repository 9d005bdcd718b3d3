/**
 * The two halves the export benches compare (bench/export.ts, bench/parquet.ts): a stored
 * export job run by the export worker in its own process with a bounded heap
 * (bench/export-worker.ts), and the reference, `COPY (query) TO STDOUT | gzip -<level>`
 * through psql into a file.
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');

/** What bench/export-worker.ts prints as its last line. */
export type ExportWorkerResult = {
  status: string;
  rows: number;
  bytes: number;
  ms: number;
  peakRssMB: number;
  peakHeapMB: number;
  maxRssMB: number;
  baselineRssMB: number;
};

/**
 * Runs export job `jobId` in a worker process with a heap of `heapMB` (if the export's memory
 * grew with its rows, the worker would run out of it); throws unless the job completed.
 */
export async function runExportWorker(options: {
  connectionString: string;
  jobId: number;
  dataDir: string;
  heapMB: number;
  env?: NodeJS.ProcessEnv;
}): Promise<ExportWorkerResult> {
  const output = await promisify(execFile)(
    process.execPath,
    [
      `--max-old-space-size=${options.heapMB}`,
      '--import',
      'tsx',
      path.join(ROOT, 'bench/export-worker.ts'),
      options.connectionString,
      String(options.jobId),
      options.dataDir,
    ],
    { cwd: ROOT, maxBuffer: 1 << 20, env: { ...process.env, ...options.env } },
  );
  const result = JSON.parse(output.stdout.trim().split('\n').at(-1)!) as ExportWorkerResult;
  if (result.status !== 'completed')
    throw new Error(`export job ${options.jobId}: ${result.status}`);
  return result;
}

/** `COPY (query) TO STDOUT | gzip -<level>` into `target`: its time and the file's bytes. */
export async function copyThroughGzip(options: {
  connectionString: string;
  query: string;
  level: number;
  target: string;
}): Promise<{ ms: number; bytes: number }> {
  const started = performance.now();
  await new Promise<void>((resolve, reject) => {
    const child = spawn(
      'sh',
      [
        '-c',
        `psql "$1" -X -q -c "$2" | gzip -${options.level} > "$3"`,
        'sh',
        options.connectionString,
        options.query,
        options.target,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`COPY | gzip exited ${code}`)),
    );
  });
  const ms = performance.now() - started;
  const bytes = fs.statSync(options.target).size;
  fs.rmSync(options.target);
  return { ms, bytes };
}
