/**
 * One export run in its own process, as a worker process runs it: `runExport` against
 * PostgreSQL, writing under a data directory. Prints one JSON line: outcome, rows, bytes,
 * wall time and the process's peak memory (RSS and V8 heap, sampled every 20 ms, plus the
 * kernel's max RSS). Used by bench/export.ts; not a benchmark by itself.
 *
 * Args: <connection string> <export job id> <data dir>
 */
import { performance } from 'node:perf_hooks';
import { openDatabase } from '../apps/server/src/db/client';
import { exportStorageFor } from '../apps/server/src/modules/export/export.job';
import { runExport } from '../apps/server/src/modules/export/export.service';
import { createReadingsRepository } from '../apps/server/src/modules/sync/readings.repository';
import { createReadingsService } from '../apps/server/src/modules/sync/readings.service';
import { createSyncRepository } from '../apps/server/src/modules/sync/sync.repository';

const [connectionString, jobIdText, dataDir] = process.argv.slice(2);
let peakRss = 0;
let peakHeap = 0;
const sample = () => {
  const usage = process.memoryUsage();
  peakRss = Math.max(peakRss, usage.rss);
  peakHeap = Math.max(peakHeap, usage.heapUsed);
};
const sampler = setInterval(sample, 20);

const database = await openDatabase({
  kind: 'postgres',
  connectionString: connectionString!,
  maxConnections: 2,
});
sample();
const baselineRss = process.memoryUsage().rss;
const quiet = {
  info: () => undefined,
  warn: () => undefined,
  error: (obj: object) => console.error(obj),
};
const started = performance.now();
const result = await runExport(
  database.db,
  Number(jobIdText),
  {
    storage: exportStorageFor({ DATA_DIR: dataDir! }),
    logger: quiet,
    readingsFor: (db) =>
      createReadingsService({
        readings: createReadingsRepository(db),
        sync: createSyncRepository(db),
      }),
  },
  {
    ...(process.env.BENCH_EXPORT_PAGE_SIZE && {
      pageSize: Number(process.env.BENCH_EXPORT_PAGE_SIZE),
    }),
    ...(process.env.BENCH_EXPORT_ZIP_LEVEL && {
      zipLevel: Number(process.env.BENCH_EXPORT_ZIP_LEVEL),
    }),
  },
);
const ms = performance.now() - started;
sample();
clearInterval(sampler);
await database.close();
console.log(
  JSON.stringify({
    ...result,
    ms,
    peakRssMB: peakRss / 1e6,
    baselineRssMB: baselineRss / 1e6,
    peakHeapMB: peakHeap / 1e6,
    // Linux reports ru_maxrss in kilobytes.
    maxRssMB: (process.resourceUsage().maxRSS * 1024) / 1e6,
  }),
);
