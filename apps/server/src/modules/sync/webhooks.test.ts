import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { participantDevices, storedReadings, syncRuns } from '../../db/schema';
import { startJobs, type Jobs, type JobLogger } from '../../jobs/boss';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createTestDatabase } from '../../test/test-database';
import { createSyncJobs, enqueueSync } from './sync.jobs';
import { testServices } from '../../test/test-services';
import { buildSyncService } from './sync.composition';
import {
  createParticipants,
  enrolledOn,
  linkForSync,
  startSyncSimulators,
  type SyncSimulators,
} from './test-support';
import { SIMULATED_ACCOUNTS } from '@trialpulse/provider-simulators/common/accounts';
import { createSimulatedClock } from '@trialpulse/provider-simulators/common/clock';
import { trackerSyncedUntil } from '@trialpulse/provider-simulators/common/wearable-model';
import { providerPlugin } from '../../providers';

const GOOGLE_HEALTH_WEBHOOK_PATH = providerPlugin('google-health').webhook!.path;
const OMRON_WEBHOOK_PATH = providerPlugin('omron').webhook!.path;

const MODE = process.env.TEST_DATABASE_URL ? 'PostgreSQL' : 'PGlite';
const SECRET = 'webhook-secret-0123456789abcdef';
const OMRON_SECRET = 'omron-notification-0123456789abcdef';
const quiet: JobLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Each test may wait up to 30 s (twice, the Google one) for a job: its budget is above
// that, so a slow job on a loaded machine fails with the wait's own message, and the test
// has finished (its jobs done) before the next one counts jobs and runs.
describe(`Google Health and Omron webhooks (${MODE})`, () => {
  let sims: SyncSimulators;
  let jobs: Jobs;
  let test: TestApp;
  let endpoint: string;
  let origin: string;

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
      env: { GOOGLE_HEALTH_WEBHOOK_SECRET: SECRET, OMRON_NOTIFICATION_SECRET: OMRON_SECRET },
      enqueueSync: (data) => enqueueSync(jobs.boss, data),
    });
    await test.app.listen({ port: 0, host: '127.0.0.1' });
    const address = test.app.server.address() as { port: number };
    origin = `http://127.0.0.1:${address.port}`;
    endpoint = `${origin}${GOOGLE_HEALTH_WEBHOOK_PATH}`;
  });
  afterAll(async () => {
    await jobs?.stop();
    await test?.close();
    await test?.database.close();
    await sims?.close();
  });

  const register = (subscriberId: string, secret: string) =>
    fetch(
      `${sims.googleHealth.baseUrl}/v4/projects/123456789/subscribers?subscriberId=${subscriberId}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          endpointUri: endpoint,
          endpointAuthorization: { secret },
          subscriberConfigs: [{ dataTypes: ['heart-rate'], subscriptionCreatePolicy: 'AUTOMATIC' }],
        }),
      },
    ).then(
      (response) => response.json() as Promise<{ done: boolean; response: { state: string } }>,
    );

  it('the simulator verifies the endpoint: the right secret gets 201, none gets 401; a wrong secret leaves it unverified', async () => {
    expect((await register('trialpulse-bad', 'Bearer not-the-secret-at-all')).response.state).toBe(
      'UNVERIFIED',
    );
    expect((await register('trialpulse-sub', `Bearer ${SECRET}`)).response.state).toBe('ACTIVE');
  });

  it('a notification leads to the new readings within one job cycle', async () => {
    const db = test.database.db;
    const fixture = await createParticipants(db, 1);
    const participantId = fixture.participantIds[0]!;
    await enrolledOn(db, participantId, new Date(sims.clock.nowMs() - 86_400_000));
    const connectionId = await linkForSync(db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Fitbit',
      account: 'ava-thompson',
      metrics: ['heart_rate', 'steps'],
    });
    const service = buildSyncService(test.database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: sims.clock,
    });
    expect(
      (await service.syncConnection(connectionId, { kind: 'backfill', owner: 'initial' })).outcome,
    ).toBe('succeeded');
    const latest = async () =>
      (
        await db
          .select({ at: sql<string>`max(${storedReadings.recordedAt})::text` })
          .from(storedReadings)
          .where(
            and(
              eq(storedReadings.participantId, participantId),
              eq(storedReadings.metricKey, 'heart_rate'),
            ),
          )
      )[0]!.at;
    const before = await latest();

    const checkNow = async () =>
      (
        (await (
          await fetch(`${sims.googleHealth.baseUrl}/__control/webhooks/check`, { method: 'POST' })
        ).json()) as {
          deliveries: Array<{
            uri: string;
            status: number;
            dataType: string;
            healthUserId: string;
            interval: { startTime: string; endTime: string };
          }>;
        }
      ).deliveries;
    // The clock has not moved: no new data, no notification.
    const delivered = (await checkNow()).length;
    expect((await checkNow()).length).toBe(delivered);
    // 45 minutes on, the tracker has uploaded: the simulator notifies over HTTP.
    sims.clock.advance(45 * 60_000);
    const check = { deliveries: (await checkNow()).slice(delivered) };
    expect(
      check.deliveries
        .filter((delivery) => delivery.uri === endpoint)
        .map((d) => [d.dataType, d.status]),
    ).toContainEqual(['heart-rate', 204]);
    // The delivery carried the connection's healthUserId.
    const [connection] = await db
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    expect(
      check.deliveries
        .filter((delivery) => delivery.uri === endpoint && delivery.dataType === 'heart-rate')
        .map((d) => d.healthUserId),
    ).toContain(connection!.providerUserId);
    await waitFor(
      async () =>
        (
          await db
            .select()
            .from(syncRuns)
            .where(
              and(
                eq(syncRuns.participantDeviceId, connectionId),
                eq(syncRuns.kind, 'webhook'),
                eq(syncRuns.outcome, 'succeeded'),
              ),
            )
        ).length > 0,
    );
    // One job cycle: a single webhook run fetched the new readings.
    const webhookRuns = await db
      .select()
      .from(syncRuns)
      .where(and(eq(syncRuns.participantDeviceId, connectionId), eq(syncRuns.kind, 'webhook')));
    expect(webhookRuns).toHaveLength(1);
    const run = webhookRuns[0];
    // Targeted: only the notified data type was fetched.
    expect(run!.metrics).toEqual(['heart_rate']);
    expect(run!.rowsInserted).toBeGreaterThan(0);
    expect(new Date(await latest()).getTime()).toBeGreaterThan(new Date(before).getTime());
    // The new readings lie in the interval the notification announced.
    const announced = check.deliveries.find(
      (delivery) =>
        delivery.uri === endpoint &&
        delivery.dataType === 'heart-rate' &&
        delivery.healthUserId === connection!.providerUserId,
    )!;
    expect(new Date(await latest()).getTime()).toBeLessThanOrEqual(
      Date.parse(announced.interval.endTime),
    );
    expect(new Date(await latest()).getTime()).toBeGreaterThan(
      Date.parse(announced.interval.startTime),
    );

    // Between two uploads of the tracker nothing new reaches the simulator: the clock moves,
    // no notification is sent. Late in a quarter hour the tracker's last upload lies behind.
    const ava = SIMULATED_ACCOUNTS.find((account) => account.id === 'ava-thompson')!;
    const quarter = 15 * 60_000;
    sims.clock.set(new Date(Math.ceil(sims.clock.nowMs() / quarter) * quarter + 14 * 60_000));
    expect(trackerSyncedUntil(ava, sims.clock.nowMs() + 30_000)).toBe(
      trackerSyncedUntil(ava, sims.clock.nowMs()),
    );
    const uploaded = (await checkNow()).length;
    expect(uploaded).toBeGreaterThan(delivered + check.deliveries.length);
    const webhookRunsDone = async () =>
      (
        await db
          .select()
          .from(syncRuns)
          .where(
            and(
              eq(syncRuns.participantDeviceId, connectionId),
              eq(syncRuns.kind, 'webhook'),
              eq(syncRuns.outcome, 'succeeded'),
            ),
          )
      ).length;
    await waitFor(async () => (await webhookRunsDone()) === 2);
    sims.clock.advance(30_000);
    expect((await checkNow()).length).toBe(uploaded);
  });

  it('a notification with a wrong or no secret is refused and changes nothing', async () => {
    const db = test.database.db;
    const jobsBefore = (
      await db.execute<{ n: number }>(
        sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`,
      )
    ).rows[0]!.n;
    const runsBefore = (await db.select().from(syncRuns)).length;
    const body = JSON.stringify({
      data: {
        version: '1',
        healthUserId: '1173016576421350648',
        operation: 'UPSERT',
        dataType: 'heart-rate',
        intervals: [],
      },
    });
    for (const authorization of [`Bearer ${SECRET}x`, 'Bearer wrong', undefined]) {
      const response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization && { authorization }) },
        body,
      });
      expect(response.status).toBe(401);
    }
    expect(
      (
        await db.execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`,
        )
      ).rows[0]!.n,
    ).toBe(jobsBefore);
    expect((await db.select().from(syncRuns)).length).toBe(runsBefore);
  });
  const omronNotifications = (uri: string | null) =>
    fetch(`${sims.omron.baseUrl}/__control/notifications`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri }),
    });
  const omronTrigger = async (accountId: string) =>
    (await (
      await fetch(`${sims.omron.baseUrl}/__control/notifications/trigger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ accountId, type: 'bloodpressure' }),
      })
    ).json()) as { status: number | null; uri: string; body: { id: string; type: string } };
  const OMRON_ACCOUNT = '5f1c2a9e-6d4b-4c1f-9a8e-1b2c3d4e5f03';

  it('an Omron notification enqueues a targeted sync that stores the new readings within one job cycle', async () => {
    const db = test.database.db;
    const fixture = await createParticipants(db, 1);
    const participantId = fixture.participantIds[0]!;
    const now = sims.clock.nowMs();
    await enrolledOn(db, participantId, new Date(now - 12 * 86_400_000));
    const connectionId = await linkForSync(db, sims, {
      teamId: fixture.teamId,
      participantId,
      brand: 'Omron',
      account: OMRON_ACCOUNT,
      metrics: ['systolic', 'diastolic', 'pulse'],
    });
    // The first backfill ran three days ago: everything measured since is new to TrialPulse.
    const synced = new Date(now - 3 * 86_400_000);
    const earlier = buildSyncService(test.database, {
      providers: sims.providers,
      encryptionKey: sims.encryptionKey,
      clock: createSimulatedClock({ start: synced, frozen: true }),
    });
    expect(
      (await earlier.syncConnection(connectionId, { kind: 'backfill', owner: 'initial' })).outcome,
    ).toBe('succeeded');
    const newer = async () =>
      (
        await db
          .select()
          .from(storedReadings)
          .where(
            and(
              eq(storedReadings.participantId, participantId),
              eq(storedReadings.metricKey, 'systolic'),
              sql`${storedReadings.recordedAt} >= ${synced.toISOString()}`,
            ),
          )
      ).length;
    expect(await newer()).toBe(0);
    expect(
      (
        await db
          .select()
          .from(storedReadings)
          .where(eq(storedReadings.participantId, participantId))
      ).length,
    ).toBeGreaterThan(0);

    // The simulator POSTs the notification to the registered URI (with its token) over HTTP.
    expect(
      (await omronNotifications(`${origin}${OMRON_WEBHOOK_PATH}?token=${OMRON_SECRET}`)).status,
    ).toBe(200);
    const delivery = await omronTrigger(OMRON_ACCOUNT);
    expect(delivery).toMatchObject({
      status: 200,
      body: { id: OMRON_ACCOUNT, type: 'bloodpressure' },
    });
    await waitFor(
      async () =>
        (
          await db
            .select()
            .from(syncRuns)
            .where(
              and(
                eq(syncRuns.participantDeviceId, connectionId),
                eq(syncRuns.kind, 'webhook'),
                eq(syncRuns.outcome, 'succeeded'),
              ),
            )
        ).length > 0,
    );
    const webhookRuns = await db
      .select()
      .from(syncRuns)
      .where(and(eq(syncRuns.participantDeviceId, connectionId), eq(syncRuns.kind, 'webhook')));
    expect(webhookRuns).toHaveLength(1);
    expect(webhookRuns[0]!.metrics).toEqual(['systolic', 'diastolic', 'pulse']);
    expect(webhookRuns[0]!.rowsInserted).toBeGreaterThan(0);
    expect(await newer()).toBeGreaterThan(0);

    // The connection reads as synced without error.
    const [connection] = await db
      .select()
      .from(participantDevices)
      .where(eq(participantDevices.id, connectionId));
    expect(connection!.lastSyncError).toBeNull();
  });

  it('an Omron notification without the URI token, with a wrong one, or malformed is refused and changes nothing', async () => {
    const db = test.database.db;
    const jobsBefore = (
      await db.execute<{ n: number }>(
        sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`,
      )
    ).rows[0]!.n;
    const runsBefore = (await db.select().from(syncRuns)).length;
    const readingsBefore = (
      await db.select({ n: sql<number>`count(*)::int` }).from(storedReadings)
    )[0]!.n;
    // Sent by the simulator itself to a URI without the right token.
    for (const uri of [
      `${origin}${OMRON_WEBHOOK_PATH}`,
      `${origin}${OMRON_WEBHOOK_PATH}?token=${OMRON_SECRET}x`,
      `${origin}${OMRON_WEBHOOK_PATH}?token=wrong`,
    ]) {
      expect((await omronNotifications(uri)).status).toBe(200);
      expect((await omronTrigger(OMRON_ACCOUNT)).status).toBe(401);
    }
    await omronNotifications(null);
    // A right token with a body that is not a notification.
    for (const body of ['{}', '{"id":42}', '[]', 'null']) {
      const response = await fetch(`${origin}${OMRON_WEBHOOK_PATH}?token=${OMRON_SECRET}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
    }
    // A token in a header instead of the URI is not accepted either.
    const header = await fetch(`${origin}${OMRON_WEBHOOK_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${OMRON_SECRET}` },
      body: JSON.stringify({ id: OMRON_ACCOUNT, timestamp: '1', type: 'bloodpressure' }),
    });
    expect(header.status).toBe(401);
    expect(
      (
        await db.execute<{ n: number }>(
          sql`select count(*)::int as n from pgboss.job where name = 'sync.connection'`,
        )
      ).rows[0]!.n,
    ).toBe(jobsBefore);
    expect((await db.select().from(syncRuns)).length).toBe(runsBefore);
    expect((await db.select({ n: sql<number>`count(*)::int` }).from(storedReadings))[0]!.n).toBe(
      readingsBefore,
    );
  });
});
