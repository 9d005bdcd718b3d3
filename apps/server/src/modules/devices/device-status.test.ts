import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEVICE_STATUS_BATCH,
  deviceStatusResponseSchema,
  type DeviceStatusResponse,
} from '@trialpulse/shared';
import { sql } from 'drizzle-orm';
import { participantDeviceStatus } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { addParticipant, createTrial } from '../participants/test-support';
import { signIn } from '../trials/test-support';
import { clearFaults, countRequests, injectFault } from './core/test-support';
import { STATUS_MAX_AGE_MS, STATUS_PROVIDER_CONCURRENCY } from './device-status.service';
import { allowAllBrands, linkAsStaff, simulatorEnv } from './test-support';

/**
 * The batched status call of the trial table's page (decision 0041), over HTTP against the
 * provider simulators: answers from the stored device lists, reads the provider only when
 * one is missing or older than a cycle, a bounded number at a time, once per connection.
 */
let sims: AllSimulators;
let ctx: TestApp;
const clock = createManualClock(new Date());
const db = () => ctx.database.db;
let admin: TestClient;
let user: TestClient;
let viewer: TestClient;
let trialId: number;
let otherTrialId: number;
let counter = 0;

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  ctx = await createTestApp({ env: simulatorEnv(sims), clock });
  const teamId = (
    await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })
  ).id;
  await allowAllBrands(db(), teamId);
  const adminAccount = await createStaffUser(db(), { role: 'Admin', teamId });
  const userAccount = await createStaffUser(db(), { role: 'User', teamId });
  const viewerAccount = await createStaffUser(db(), { role: 'Viewer', teamId });
  admin = await signIn(ctx.app, db(), adminAccount);
  user = await signIn(ctx.app, db(), userAccount);
  viewer = await signIn(ctx.app, db(), viewerAccount);
  trialId = (await createTrial(db(), admin, [userAccount.email, viewerAccount.email])).id;
  otherTrialId = (await createTrial(db(), admin)).id;
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

beforeEach(async () => {
  await clearFaults(sims.googleHealth.baseUrl);
});

async function newParticipant(trial = trialId): Promise<number> {
  const email = `status-${process.pid}-${++counter}@study.example.org`;
  return (await addParticipant(admin, { trialId: trial, email })).participantId;
}

/**
 * Makes every stored device list `ms` older (instead of moving the clock, which would also
 * end the test sessions).
 */
async function ageStoredStatus(ms: number) {
  await db()
    .update(participantDeviceStatus)
    .set({
      checkedAt: sql`${participantDeviceStatus.checkedAt} - make_interval(secs => ${ms / 1000})`,
    });
}

async function statusOf(client: TestClient, ids: readonly number[]): Promise<DeviceStatusResponse> {
  const response = await client.get(`/api${DEVICE_STATUS_BATCH.path}?ids=${ids.join(',')}`);
  expect(response.statusCode, response.body).toBe(200);
  return deviceStatusResponseSchema.parse(response.json());
}

/** Counts provider device-list calls and the most that were in flight at once. */
function watchDeviceListCalls(sim: AllSimulators['googleHealth']) {
  let inFlight = 0;
  let most = 0;
  let calls = 0;
  const listener = (
    request: { url?: string },
    response: { once(event: 'close', done: () => void): void },
  ) => {
    if (!request.url?.includes('/pairedDevices')) return;
    calls += 1;
    inFlight += 1;
    most = Math.max(most, inFlight);
    response.once('close', () => {
      inFlight -= 1;
    });
  };
  sim.app.server.on('request', listener);
  return {
    get calls() {
      return calls;
    },
    get most() {
      return most;
    },
    stop: () => void sim.app.server.off('request', listener),
  };
}

describe('GET /api/deviceStatus (batched status of a table page)', () => {
  it('answers each visible participant’s brands from one call, and leaves out ids the caller may not see', async () => {
    const fitbit = await newParticipant();
    const omron = await newParticipant();
    const none = await newParticipant();
    const elsewhere = await newParticipant(otherTrialId); // the User is no trial user there
    expect((await linkAsStaff(admin, fitbit, 'Fitbit')).statusCode).toBe(200);
    expect((await linkAsStaff(admin, omron, 'Omron')).statusCode).toBe(200);

    const answer = await statusOf(user, [fitbit, omron, none, elsewhere, 2_000_000_000]);
    expect(answer.statuses.map((status) => status.participantId)).toEqual([fitbit, omron, none]);

    const [first, second, third] = answer.statuses;
    expect(first!.brands.map((brand) => brand.brand)).toEqual(['Fitbit', 'Omron', 'Dexcom']);
    expect(first!.brands[0]).toMatchObject({
      auth: { message: 'found', status: 'authorized', upstream: 'google-health' },
    });
    const tracker = first!.brands[0]!.devices.find((device) => device.deviceType === 'TRACKER');
    expect(tracker).toMatchObject({ device: 'Fitbit', hasError: false, errorType: null });
    expect(typeof tracker!.batteryLevel).toBe('number');
    expect(first!.brands[1]).toMatchObject({
      auth: { message: 'not found' },
      devices: [],
      checkedAt: null,
    });
    expect(second!.brands[1]).toMatchObject({
      brand: 'Omron',
      auth: { message: 'found', status: 'authorized' },
    });
    expect(
      third!.brands.every(
        (brand) => brand.auth.message === 'not found' && brand.devices.length === 0,
      ),
    ).toBe(true);

    // The same answers as the spec's per-participant calls, which keep working.
    const single = await user.get(`/api/fitbitIsParticipantAuth/${fitbit}`);
    expect(single.json()).toEqual(first!.brands[0]!.auth);
    const omronSingle = await user.get(`/api/omronIsParticipantAuth/${omron}`);
    expect(omronSingle.json()).toEqual(second!.brands[1]!.auth);
    const devices = await user.get(`/api/fitbitDevices/${fitbit}`);
    expect(devices.statusCode).toBe(200);
    expect(
      devices
        .json()
        .devices.map((d: { type: string }) => d.type)
        .sort(),
    ).toEqual(first!.brands[0]!.devices.map((d) => d.deviceType).sort());
    // An Admin sees every trial: the other trial's participant too.
    expect((await statusOf(admin, [elsewhere])).statuses.map((s) => s.participantId)).toEqual([
      elsewhere,
    ]);
  });

  it('reads the provider only for device lists missing or older than one cycle', async () => {
    const id = await newParticipant();
    expect((await linkAsStaff(admin, id, 'Fitbit')).statusCode).toBe(200);

    const calls = countRequests(sims.googleHealth, '/pairedDevices');
    try {
      const firstAnswer = await statusOf(user, [id]);
      expect(calls.count).toBe(1); // nothing stored yet
      await ageStoredStatus(STATUS_MAX_AGE_MS - 1_000);
      const again = await statusOf(user, [id]);
      expect(calls.count).toBe(1); // from the stored status
      expect(again.statuses[0]!.brands[0]!.devices).toEqual(
        firstAnswer.statuses[0]!.brands[0]!.devices,
      );
      await ageStoredStatus(2_000);
      const later = await statusOf(user, [id]);
      expect(calls.count).toBe(2); // stale: read again and stored
      expect(later.statuses[0]!.brands[0]!.checkedAt).toBe(clock.now().toISOString());

      // The per-participant device list call stores what it read for the batched call.
      await ageStoredStatus(STATUS_MAX_AGE_MS + 1_000);
      expect((await user.get(`/api/fitbitDevices/${id}`)).statusCode).toBe(200);
      expect(calls.count).toBe(3);
      await statusOf(user, [id]);
      expect(calls.count).toBe(3);
    } finally {
      calls.stop();
    }
  });

  it('keeps provider calls bounded and reads each connection once when two tabs ask together', async () => {
    const ids: number[] = [];
    for (let index = 0; index < STATUS_PROVIDER_CONCURRENCY * 2; index += 1) {
      const id = await newParticipant();
      expect((await linkAsStaff(admin, id, 'Fitbit')).statusCode).toBe(200);
      ids.push(id);
    }
    await ageStoredStatus(STATUS_MAX_AGE_MS + 1_000); // whatever earlier reads stored is stale now
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'slow',
      delayMs: 150,
      times: 'always',
      pathIncludes: '/pairedDevices',
    });
    const watch = watchDeviceListCalls(sims.googleHealth);
    try {
      const [tabA, tabB] = await Promise.all([statusOf(user, ids), statusOf(user, ids)]);
      expect(watch.calls).toBe(ids.length);
      expect(watch.most).toBeLessThanOrEqual(STATUS_PROVIDER_CONCURRENCY);
      expect(watch.most).toBeGreaterThan(1);
      expect(tabA.statuses.map((s) => s.brands[0]!.devices.length > 0)).toEqual(
        ids.map(() => true),
      );
      expect(tabB).toEqual(tabA);
    } finally {
      watch.stop();
    }
  });

  it('stores a provider failure as the error entry the table shows', async () => {
    const id = await newParticipant();
    expect((await linkAsStaff(admin, id, 'Fitbit')).statusCode).toBe(200);
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'rate-limit',
      target: 'api',
      times: 'always',
    });
    const answer = await statusOf(user, [id]);
    expect(answer.statuses[0]!.brands[0]!.devices).toEqual([
      expect.objectContaining({ device: 'Fitbit', hasError: true, errorType: 'rate_limit' }),
    ]);
  });

  it('refuses bad id lists and roles without the status column', async () => {
    for (const query of [
      '',
      '?ids=',
      '?ids=abc',
      '?ids=1,,2',
      '?ids=0',
      `?ids=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`,
    ]) {
      const response = await user.get(`/api${DEVICE_STATUS_BATCH.path}${query}`);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().reason).toBe('VALIDATION_ERROR');
    }
    expect((await viewer.get(`/api${DEVICE_STATUS_BATCH.path}?ids=1`)).statusCode).toBe(403);
  });
});
