import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import { createManualClock } from '../../lib/clock';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient } from '../../test/fixtures';
import { allowAllBrands, linkAsStaff, simulatorEnv } from '../../modules/devices/test-support';
import { addParticipant, createTrial } from '../../modules/participants/test-support';
import { signIn } from '../../modules/trials/test-support';
import { FITBIT_TESTS_NOW, linkLegacyFitbit, setFitbitSimulatorClocks } from './test-support';

/**
 * /api/fitbitParticipantDataRaw: the upstream's own answer for a resource path (Sys_Admin),
 * read through the app's real clients from the Google Health and legacy Fitbit simulators.
 */
let sims: AllSimulators;
let ctx: TestApp;
const clock = createManualClock(FITBIT_TESTS_NOW);
const db = () => ctx.database.db;
let teamId: number;
let sysAdmin: TestClient;
let admin: TestClient;
let otherSysAdmin: TestClient;
let trialId: number;
let counter = 0;

const PATH = 'activities/steps/date/2026-11-01/2026-11-07.json';
const rawPath = (id: number, resourcePath: string) =>
  `/api/fitbitParticipantDataRaw/${id}/${resourcePath}`;

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  await setFitbitSimulatorClocks(sims);
  ctx = await createTestApp({ env: simulatorEnv(sims), clock });
  teamId = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  await allowAllBrands(db(), teamId);
  const adminAccount = await createStaffUser(db(), { role: 'Admin', teamId });
  admin = await signIn(ctx.app, db(), adminAccount);
  sysAdmin = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Sys_Admin', teamId }),
  );
  const otherTeam = (
    await createTeam(db(), { maxTrials: 10, maxParticipants: 10, hiddenFields: [] })
  ).id;
  otherSysAdmin = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Sys_Admin', teamId: otherTeam }),
  );
  trialId = (await createTrial(db(), admin, [])).id;
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

async function newParticipant() {
  const email = `fitbit-raw-${process.pid}-${++counter}@study.example.org`;
  const added = await addParticipant(admin, { trialId, email });
  return { id: added.participantId, email };
}

describe('GET /api/fitbitParticipantDataRaw', () => {
  it("a Google Health connection: Google's dailyRollUp points of the query's data type", async () => {
    const participant = await newParticipant();
    const linked = await linkAsStaff(
      admin,
      participant.id,
      'Fitbit',
      {},
      { email: participant.email },
    );
    expect(linked.statusCode, linked.body).toBe(200);
    const response = await sysAdmin.get(rawPath(participant.id, PATH));
    expect(response.statusCode, response.body).toBe(200);
    const body = response.json() as {
      upstream: string;
      request: string;
      answer: Array<{ date: string; values: Record<string, unknown> }>;
    };
    expect(body.upstream).toBe('google-health');
    expect(body.request).toContain('dataTypes/steps/dataPoints:dailyRollUp');
    expect(body.answer.length).toBeGreaterThan(0);
    for (const point of body.answer) {
      expect(point.date >= '2026-11-01' && point.date <= '2026-11-07').toBe(true);
      expect(point.values).toHaveProperty('countSum');
    }
  });

  it("a legacy connection: the legacy API's answer for the path, as sent", async () => {
    const participant = await newParticipant();
    const { client, tokens } = await linkLegacyFitbit(ctx, clock, {
      teamId,
      participantId: participant.id,
    });
    const response = await sysAdmin.get(rawPath(participant.id, PATH));
    expect(response.statusCode, response.body).toBe(200);
    const direct = await client.getResource(tokens.accessToken, `/1/user/-/${PATH}`);
    expect(response.json()).toEqual({
      upstream: 'fitbit-legacy',
      request: `/1/user/-/${PATH}`,
      answer: direct,
    });
    expect((direct as Record<string, unknown[]>)['activities-steps']).toHaveLength(7);
  });

  it('Sys_Admin only; another team 404; a path that is not a resource path 400', async () => {
    const participant = await newParticipant();
    expect((await admin.get(rawPath(participant.id, PATH))).statusCode).toBe(403);
    expect((await otherSysAdmin.get(rawPath(participant.id, PATH))).statusCode).toBe(404);
    const bad = await sysAdmin.get(
      rawPath(participant.id, 'activities/steps/date/2026-11-01/%2E%2E%2Ftoken'),
    );
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ message: FITBIT_DATA_MESSAGES.badRequest });
  });
});
