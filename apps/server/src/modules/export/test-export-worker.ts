/**
 * An export worker in a process of its own, for the tests that kill it or stop PostgreSQL
 * under it (export.test's worker processes, the Bulk Data fault test): runs one export job
 * (`runExport`, what the pg-boss handler runs) on the PostgreSQL database in DATABASE_URL,
 * writing under EXPORT_TEST_DATA_DIR. EXPORT_TEST_PAGE_SIZE and EXPORT_TEST_RESOURCES_PER_FILE
 * make pages and Bulk Data files small. With EXPORT_TEST_HOLD=1 it prints "held" after its
 * first page and waits for a line on stdin before going on, so the test can kill it (SIGKILL)
 * or restart PostgreSQL under it mid-export. It prints the outcome as one JSON line and exits.
 * Started by `startExportWorkerProcess` (test-support.ts).
 *
 * Args: <export job id>
 */
import { once } from 'node:events';
import { openDatabase } from '../../db/client';
import { readingsServiceFor } from '../sync/test-support';
import { exportStorageFor } from './export.job';
import { runExport } from './export.service';

const jobId = Number(process.argv[2]);
const optionalNumber = (value: string | undefined) => (value ? Number(value) : undefined);
const pageSize = optionalNumber(process.env.EXPORT_TEST_PAGE_SIZE);
const bulkResourcesPerFile = optionalNumber(process.env.EXPORT_TEST_RESOURCES_PER_FILE);
const database = await openDatabase({
  kind: 'postgres',
  connectionString: process.env.DATABASE_URL!,
  maxConnections: 2,
});
let hold = process.env.EXPORT_TEST_HOLD === '1';
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
    ...(pageSize === undefined ? {} : { pageSize }),
    ...(bulkResourcesPerFile === undefined ? {} : { bulkResourcesPerFile }),
    async afterPage() {
      if (!hold) return;
      hold = false;
      process.stdout.write('held\n');
      await once(process.stdin, 'data');
    },
  },
).catch((error: unknown) => ({ status: 'threw', message: String(error) }));
await database.close().catch(() => undefined);
process.stdout.write(`${JSON.stringify(result)}\n`);
process.exit(0);
