/**
 * A sync worker process for the multi-process tests: pg-boss with the sync jobs on the
 * PostgreSQL database in DATABASE_URL, providers from SYNC_TEST_PROVIDERS (JSON). Prints
 * "ready" once its workers run (lease length from SYNC_TEST_LEASE_MS); stops on SIGTERM (and dies on SIGKILL, as tests want).
 */
import { openDatabase } from '../../db/client';
import { startJobs } from '../../jobs/boss';
import { testServices } from '../../test/test-services';
import { createSyncJobs } from './sync.jobs';

const runSeconds = Number(process.env.SYNC_TEST_RUN_SECONDS ?? 5);
const database = await openDatabase({
  kind: 'postgres',
  connectionString: process.env.DATABASE_URL!,
});
const jobs = await startJobs({
  database,
  logger: {
    info: () => undefined,
    warn: () => undefined,
    error: (obj, msg) => console.error(msg, obj),
  },
  schedule: false,
  pollingIntervalSeconds: 0.5,
  jobs: createSyncJobs({ runSeconds }),
  services: testServices(database, {
    providers: JSON.parse(process.env.SYNC_TEST_PROVIDERS!),
    encryptionKey: process.env.SYNC_TEST_KEY!,
    sync: {
      runSeconds,
      // A short lease (renewed every quarter of it): a killed worker's connection is free again soon.
      ...(process.env.SYNC_TEST_LEASE_MS && { leaseMs: Number(process.env.SYNC_TEST_LEASE_MS) }),
    },
  }),
});
process.stdout.write('ready\n');
process.once('SIGTERM', () => {
  void jobs
    .stop()
    .then(() => database.close())
    .then(() => process.exit(0));
});
