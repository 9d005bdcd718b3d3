/**
 * An export worker process for the pg-boss retry test, started as main.ts starts one
 * (`startJobs` with the export job definitions) on the PostgreSQL database in DATABASE_URL,
 * writing under EXPORT_TEST_DATA_DIR. Only the timings are short: the run expires after
 * EXPORT_TEST_EXPIRE_SECONDS, is retried 1 s later, pg-boss supervises every second and a
 * silent job is taken over after 1 s. Prints "ready" once its worker polls. With
 * EXPORT_TEST_HOLD=1 a run stops dead after its first page and prints "held <jobId>", so
 * the test can kill the process mid-export (SIGKILL). SIGTERM stops it gracefully.
 */
import { openDatabase } from '../../db/client';
import { startJobs } from '../../jobs/boss';
import { readingsServiceFor } from '../sync/test-support';
import { exportJobDefinitions } from './export.job';

const database = await openDatabase({
  kind: 'postgres',
  connectionString: process.env.DATABASE_URL!,
  maxConnections: 2,
});
const hold = process.env.EXPORT_TEST_HOLD === '1';
const jobs = await startJobs({
  database,
  logger: { info: () => undefined, warn: () => undefined, error: (obj) => console.error(obj) },
  schedule: false,
  pollingIntervalSeconds: 0.5,
  maintenanceIntervalSeconds: 1,
  jobs: exportJobDefinitions(
    { DATA_DIR: process.env.EXPORT_TEST_DATA_DIR! },
    (db) => readingsServiceFor(db),
    {
      heartbeatMs: 0,
      runQueue: { expireInSeconds: Number(process.env.EXPORT_TEST_EXPIRE_SECONDS), retryDelay: 1 },
      takeoverAfterMs: 1000,
      async afterPage(job) {
        if (!hold) return;
        process.stdout.write(`held ${job.id}\n`);
        await new Promise(() => undefined);
      },
    },
  ),
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void jobs
    .stop()
    .then(() => database.close())
    .then(() => process.exit(0));
});
