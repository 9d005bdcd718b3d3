import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceReadings, participantDevices, syncRuns } from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { simulatorEnvironment } from '@trialpulse/provider-simulators/embedded';
import { createStaffUser, signIn } from '../../test/fixtures';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createTestDatabase } from '../../test/test-database';
import { allowAllBrands, linkAsStaff } from '../devices/test-support';
import { SYNC_CONNECTION_JOB, createSyncJobs, enqueueSync } from './sync.jobs';
import { testServices } from '../../test/test-services';
import {
  createParticipants,
  enableMetrics,
  enrolledOn,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * A newly linked connection starts its backfill at once (decision 0103): the callback that
 * stores the grant queues a sync job of the connection; the 15-minute scheduler is not
 * running here, so only that job can have fetched the readings.
 */
describe(`a new connection's backfill starts when it is linked (${MODE})`, () => {
  let sims: SyncSimulators;
  let jobs: Jobs;
  let test: TestApp;

  beforeAll(async () => {
    const database = await createTestDatabase();
    sims = await startSyncSimulators();
    jobs = await startJobs({
      database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: createSyncJobs(),
      services: testServices(database, {
        providers: sims.providers,
        encryptionKey: sims.encryptionKey,
        clock: sims.clock,
      }),
    });
    test = await createTestApp({
      database,
      clock: sims.clock,
      env: {
        TOKEN_ENCRYPTION_KEY: sims.encryptionKey,
        PUBLIC_URL: 'http://localhost:5173',
        ...simulatorEnvironment({
          googleHealth: sims.googleHealth.baseUrl,
          fitbitLegacy: 'http://127.0.0.1:9',
          omron: sims.omron.baseUrl,
          dexcom: sims.dexcom.baseUrl,
        }),
      },
      enqueueSync: (data) => enqueueSync(jobs.boss, data),
    });
  });
  afterAll(async () => {
    await jobs?.stop();
    await test?.close();
    await test?.database.close();
    await sims?.close();
  });

  it('linking an Omron account through the callback queues its backfill, which stores the readings without waiting for the scheduler', async () => {
    const db = test.database.db;
    const { teamId, participantIds } = await createParticipants(db, 1);
    const participantId = participantIds[0]!;
    await enrolledOn(db, participantId, new Date(sims.clock.nowMs() - 20 * 86_400_000));
    await allowAllBrands(db, teamId);
    await enableMetrics(db, {
      teamId,
      brand: 'Omron',
      metrics: ['systolic', 'diastolic', 'pulse'],
    });
    const admin = await signIn(test.app, db, await createStaffUser(db, { role: 'Admin', teamId }));
    const queued = async () =>
      (
        await db.execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = ${SYNC_CONNECTION_JOB}`,
        )
      ).rows[0]!.n;
    expect(await queued()).toBe(0);

    const linked = await linkAsStaff(admin, participantId, 'Omron', {
      account: '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f05',
    });
    expect(linked.statusCode, linked.body).toBe(200);
    const [connection] = await db
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.participantId, participantId));
    expect(connection!.authorizationStatus).toBe('authorized');
    expect(await queued()).toBeGreaterThan(0);

    const backfills = () =>
      db
        .select()
        .from(syncRuns)
        .where(
          and(eq(syncRuns.participantDeviceId, connection!.id), eq(syncRuns.kind, 'backfill')),
        );
    await waitFor(async () => (await backfills()).some((run) => run.outcome === 'succeeded'));
    const [run] = await backfills();
    expect(run!.metrics).toEqual(['systolic', 'diastolic', 'pulse']);
    expect(run!.rowsInserted).toBeGreaterThan(0);
    const stored = await db
      .select()
      .from(deviceReadings)
      .where(
        and(
          eq(deviceReadings.participantId, participantId),
          eq(deviceReadings.metricKey, 'systolic'),
        ),
      );
    expect(stored.length).toBeGreaterThan(5);
    expect(stored.every((row) => row.upstream === 'omron' && row.syncRunId === run!.id)).toBe(true);
  });
});
