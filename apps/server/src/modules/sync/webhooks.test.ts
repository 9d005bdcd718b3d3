import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deviceReadings, syncRuns } from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createTestDatabase } from '../../test/test-database';
import { createSyncJobs, enqueueSync } from './sync.jobs';
import { buildSyncService } from './sync.composition';
import { createParticipants, enrolledOn, linkForSync, startSyncSimulators, type SyncSimulators } from './test-support';
import { GOOGLE_HEALTH_WEBHOOK_PATH } from './webhooks.routes';

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const SECRET = 'webhook-secret-0123456789abcdef';
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe(`Google Health webhooks (${MODE})`, () => {
  let sims: SyncSimulators;
  let jobs: Jobs;
  let test: TestApp;
  let endpoint: string;

  beforeAll(async () => {
    const database = await createTestDatabase();
    sims = await startSyncSimulators();
    jobs = await startJobs({
      database,
      logger: quiet,
      schedule: false,
      pollingIntervalSeconds: 0.5,
      jobs: createSyncJobs({ providers: sims.providers, encryptionKey: sims.encryptionKey, clock: sims.clock }),
    });
    test = await createTestApp({ database, env: { GOOGLE_HEALTH_WEBHOOK_SECRET: SECRET }, enqueueSync: (data) => enqueueSync(jobs.boss, data) });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address() as { port: number };
    endpoint = `http://127.0.0.1:${address.port}${GOOGLE_HEALTH_WEBHOOK_PATH}`;
  });
  afterAll(async () => {
    await jobs?.stop();
    await test?.close();
    await test?.database.close();
    await sims?.close();
  });

  const register = (subscriberId: string, secret: string) =>
    fetch(`${sims.googleHealth.baseUrl}/v4/projects/123456789/subscribers?subscriberId=${subscriberId}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ endpointUri: endpoint, endpointAuthorization: { secret }, subscriberConfigs: [{ dataTypes: ['heart-rate'], subscriptionCreatePolicy: 'AUTOMATIC' }] }),
    }).then((response) => response.json() as Promise<{ done: boolean; response: { state: string } }>);

  it('the simulator verifies the endpoint: the right secret gets 201, none gets 401; a wrong secret leaves it unverified', async () => {
    expect((await register('trialpulse-bad', 'Bearer not-the-secret-at-all')).response.state).toBe('UNVERIFIED');
    expect((await register('trialpulse-sub', `Bearer ${SECRET}`)).response.state).toBe('ACTIVE');
  });

  it('a notification leads to the new readings within one job cycle', async () => {
    const db = test.database.db;
    const fixture = await createParticipants(db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(db, participantId, new Date(sims.clock.nowMs() - 86_400_000));
    const connectionId = await linkForSync(db, sims, { teamId: fixture.teamId, participantId, brand: 'Fitbit', account: 'ava-thompson', metrics: ['heart_rate', 'steps'] });
    const service = buildSyncService(test.database, { providers: sims.providers, encryptionKey: sims.encryptionKey, clock: sims.clock });
    expect((await service.syncConnection(connectionId, { kind: 'backfill', owner: 'initial' })).outcome).toBe('succeeded');
    const latest = async () =>
      (await db.select({ at: sql<string>`max(${deviceReadings.recordedAt})::text` }).from(deviceReadings).where(and(eq(deviceReadings.participantId, participantId), eq(deviceReadings.metricKey, 'heart_rate'))))[0]!.at;
    const before = await latest();

    sims.clock.advance(45 * 60_000);
    const check = (await (await fetch(`${sims.googleHealth.baseUrl}/__control/webhooks/check`, { method: 'POST' })).json()) as { deliveries: Array<{ uri: string; status: number; dataType: string; healthUserId: string }> };
    expect(check.deliveries.filter((delivery) => delivery.uri === endpoint).map((d) => [d.dataType, d.status])).toContainEqual(['heart-rate', 204]);
    await waitFor(async () => (await db.select().from(syncRuns).where(and(eq(syncRuns.participantDeviceId, connectionId), eq(syncRuns.kind, 'webhook'), eq(syncRuns.outcome, 'succeeded')))).length > 0);
    const [run] = await db.select().from(syncRuns).where(and(eq(syncRuns.participantDeviceId, connectionId), eq(syncRuns.kind, 'webhook')));
    // Targeted: only the notified data type was fetched.
    expect(run!.metrics).toEqual(['heart_rate']);
    expect(run!.rowsInserted).toBeGreaterThan(0);
    expect(new Date(await latest()).getTime()).toBeGreaterThan(new Date(before).getTime());
  });

  it('a notification with a wrong or no secret is refused and changes nothing', async () => {
    const db = test.database.db;
    const jobsBefore = (await db.execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`)).rows[0]!.n;
    const runsBefore = (await db.select().from(syncRuns)).length;
    const body = JSON.stringify({ data: { version: '1', healthUserId: '1173016576421350648', operation: 'UPSERT', dataType: 'heart-rate', intervals: [] } });
    for (const authorization of [`Bearer ${SECRET}x`, 'Bearer wrong', undefined]) {
      const response = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization && { authorization }) }, body });
      expect(response.status).toBe(401);
    }
    expect((await db.execute<{ n: number }>(sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`)).rows[0]!.n).toBe(jobsBefore);
    expect((await db.select().from(syncRuns)).length).toBe(runsBefore);
  });
});
