/**
 * An export worker process for the multi-process test: runs one export job (`runExport`,
 * what the pg-boss handler runs) on the PostgreSQL database in DATABASE_URL, writing under
 * EXPORT_TEST_DATA_DIR. With EXPORT_TEST_HOLD=1 it prints "held" after its first data file
 * is in the ZIP and then waits forever, so the test can kill it mid-export (SIGKILL).
 * Otherwise it prints the outcome as one JSON line and exits.
 *
 * Args: <export job id>
 */
import { openDatabase } from '../../db/client';
import { readingsServiceFor } from '../sync/test-support';
import { exportStorageFor } from './export.job';
import { runExport } from './export.service';

const jobId = Number(process.argv[2]);
const database = await openDatabase({
  kind: 'postgres',
  connectionString: process.env.DATABASE_URL!,
  maxConnections: 2,
});
const hold = process.env.EXPORT_TEST_HOLD === '1';
const result = await runExport(
  database.db,
  jobId,
  {
    storage: exportStorageFor({ DATA_DIR: process.env.EXPORT_TEST_DATA_DIR! }),
    logger: { info: () => undefined, warn: () => undefined, error: (obj) => console.error(obj) },
    readingsFor: (db) => readingsServiceFor(db),
  },
  {
    heartbeatMs: 0,
    async afterPage() {
      if (!hold) return;
      process.stdout.write('held\n');
      await new Promise(() => undefined);
    },
  },
);
await database.close();
process.stdout.write(`${JSON.stringify(result)}\n`);
