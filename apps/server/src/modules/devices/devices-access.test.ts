import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLES, type Role } from '@trialpulse/shared';
import { participantDevices, users } from '../../db/schema';
import { eq } from 'drizzle-orm';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, TestClient, type TestUser } from '../../test/fixtures';
import { addParticipant, createTrial } from '../participants/test-support';
import { signIn } from '../trials/test-support';
import { solveHumanCheck } from '../human-check/test-support';
import {
  allowAllBrands,
  connectionRow,
  consentAtProvider,
  linkAsStaff,
  postCallback,
  simulatorEnv,
} from './test-support';

/**
 * Roles and tenancy on every device call: Viewers are refused (403), users of another team
 * and Users who are not trial users of the participant's trial get 404, and nothing
 * changes; token management lists are for Sys_Admin and Admin; the participant portal
 * shows a verified participant account its own enrolments only.
 */
let sims: AllSimulators;
let ctx: TestApp;
const db = () => ctx.database.db;
let teamA: number;
let teamB: number;
const usersA = {} as Record<Role, TestUser>;
const clientsA = {} as Record<Role, TestClient>;
const clientsB = {} as Record<Role, TestClient>;
let userNotInTrial: TestClient;
let participantId: number;
let participantEmail: string;

beforeAll(async () => {
  sims = await startAllSimulators();
  ctx = await createTestApp({ env: simulatorEnv(sims) });
  teamA = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  teamB = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  await allowAllBrands(db(), teamA);
  await allowAllBrands(db(), teamB);
  for (const role of ROLES) {
    usersA[role] = await createStaffUser(db(), { role, teamId: teamA });
    clientsA[role] = await signIn(ctx.app, db(), usersA[role]);
    clientsB[role] = await signIn(
      ctx.app,
      db(),
      await createStaffUser(db(), { role, teamId: teamB }),
    );
  }
  userNotInTrial = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'User', teamId: teamA }),
  );
  const trial = await createTrial(db(), clientsA.Admin, [usersA.User.email, usersA.Viewer.email]);
  participantEmail = `access-device-${process.pid}@study.example.org`;
  participantId = (
    await addParticipant(clientsA.Admin, { trialId: trial.id, email: participantEmail })
  ).participantId;
  const linked = await linkAsStaff(clientsA.User, participantId, 'Fitbit');
  expect(linked.statusCode, linked.body).toBe(200);
});

afterAll(async () => {
  await ctx?.close();
  await sims?.close();
});

type Call = {
  name: string;
  run: (client: TestClient) => Promise<{ statusCode: number; body: string }>;
};

/** Every participant-scoped staff call of device linking. */
const calls = (): Call[] => [
  {
    name: 'consent email',
    run: (c) => c.post('/api/participantConsentEmail', { participantId, brand: 'Fitbit' }),
  },
  {
    name: 'start authorisation',
    run: (c) => c.post('/api/deviceAuthorization', { participantId, brand: 'Omron' }),
  },
  { name: 'fitbit is-auth', run: (c) => c.get(`/api/fitbitIsParticipantAuth/${participantId}`) },
  { name: 'omron is-auth', run: (c) => c.get(`/api/omronIsParticipantAuth/${participantId}`) },
  { name: 'dexcom is-auth', run: (c) => c.get(`/api/dexcomIsParticipantAuth/${participantId}`) },
  { name: 'fitbit devices', run: (c) => c.get(`/api/fitbitDevices/${participantId}`) },
  { name: 'dexcom devices', run: (c) => c.get(`/api/dexcomDevices/${participantId}`) },
  { name: 'connections', run: (c) => c.get(`/api/participantConnections/${participantId}`) },
  { name: 'fitbit refresh', run: (c) => c.post('/api/fitbitRefreshToken', { id: participantId }) },
  { name: 'omron refresh', run: (c) => c.post('/api/omronRefreshToken', { id: participantId }) },
  { name: 'dexcom refresh', run: (c) => c.post('/api/dexcomRefreshToken', { id: participantId }) },
  { name: 'fitbit revoke', run: (c) => c.getWithCsrf(`/api/revokeAccessToken/${participantId}`) },
  { name: 'omron revoke', run: (c) => c.post('/api/omronRevokeToken', { id: participantId }) },
  { name: 'dexcom revoke', run: (c) => c.post('/api/dexcomRevokeToken', { id: participantId }) },
];

describe('device calls by role and team', () => {
  it('Viewers are refused every call (403) and nothing changes', async () => {
    const before = await connectionRow(db(), participantId);
    for (const call of calls()) {
      const response = await call.run(clientsA.Viewer);
      expect(response.statusCode, call.name).toBe(403);
    }
    expect(await connectionRow(db(), participantId)).toEqual(before);
  });

  it('every role of another team gets 404 on every call and nothing changes', async () => {
    const before = await connectionRow(db(), participantId);
    for (const role of ROLES) {
      for (const call of calls()) {
        const response = await call.run(clientsB[role]);
        expect(response.statusCode, `${role} ${call.name}`).toBe(role === 'Viewer' ? 403 : 404);
        expect(response.body).not.toContain(participantEmail);
      }
    }
    expect(await connectionRow(db(), participantId)).toEqual(before);
  });

  it('a User who is not a trial user of the trial gets 404', async () => {
    for (const call of calls()) {
      expect((await call.run(userNotInTrial)).statusCode, call.name).toBe(404);
    }
  });

  it('Sys_Admin, Admin and the trial User may read the status', async () => {
    for (const role of ['Sys_Admin', 'Admin', 'User'] as const) {
      const response = await clientsA[role].get(`/api/fitbitIsParticipantAuth/${participantId}`);
      expect(response.statusCode, role).toBe(200);
      expect(response.json().message).toBe('found');
    }
  });

  it('token management lists are for Sys_Admin and Admin, scoped to their team', async () => {
    for (const role of ROLES) {
      const response = await clientsA[role].get('/api/deviceConnections/fitbit');
      expect(response.statusCode, role).toBe(role === 'Sys_Admin' || role === 'Admin' ? 200 : 403);
      if (response.statusCode === 200) {
        expect(
          response.json().connections.map((c: { participantId: number }) => c.participantId),
        ).toEqual([participantId]);
      }
    }
    const otherTeam = await clientsB.Admin.get('/api/deviceConnections/fitbit');
    expect(otherTeam.json().connections).toEqual([]);
    expect((await clientsA.Admin.get('/api/deviceConnections/garmin')).statusCode).toBe(400);
  });

  it('signed-out callers are refused staff calls (401)', async () => {
    const visitor = new TestClient(ctx.app);
    for (const call of calls()) {
      const response = await call.run(visitor);
      expect([401, 403], call.name).toContain(response.statusCode);
    }
    expect((await connectionRow(db(), participantId))[0]?.refreshTokenEncrypted).toBeTruthy();
  });
});

describe('participant portal', () => {
  async function participantAccount(email: string): Promise<TestClient> {
    const client = new TestClient(ctx.app);
    const password = 'Portal!Pass2026';
    const signup = await client.post('/api/Participants/signup', {
      username: email,
      email,
      password,
      confirmPassword: password,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(signup.statusCode, signup.body).toBe(200);
    const login = await client.post('/api/Participants/login', {
      username: email,
      password,
      recaptchaResponse: await solveHumanCheck(ctx.app),
    });
    expect(login.statusCode, login.body).toBe(200);
    return client;
  }

  it('an unverified account sees nothing; a verified one sees and manages its own enrolment only', async () => {
    const account = await participantAccount(participantEmail);
    expect((await account.get('/api/Participants/me/enrolments')).json()).toEqual({
      enrolments: [],
    });
    const refusedEarly = await account.post('/api/Participants/me/deviceAuthorization', {
      participantId,
      brand: 'Omron',
    });
    expect(refusedEarly.statusCode).toBe(404);

    await db()
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(eq(users.email, participantEmail));
    const enrolments = (await account.get('/api/Participants/me/enrolments')).json().enrolments;
    expect(enrolments).toHaveLength(1);
    expect(enrolments[0]).toMatchObject({ participantId });
    expect(
      enrolments[0].connections.map((c: { brand: string; status: string }) => [c.brand, c.status]),
    ).toEqual([
      ['Fitbit', 'authorized'],
      ['Omron', 'not_authorized'],
      ['Dexcom', 'not_authorized'],
    ]);
    // Staff calls stay closed to participant accounts.
    expect((await account.get(`/api/fitbitIsParticipantAuth/${participantId}`)).statusCode).toBe(
      403,
    );

    // Authorise Omron from the portal, through the provider and the callback.
    const started = await account.post('/api/Participants/me/deviceAuthorization', {
      participantId,
      brand: 'Omron',
    });
    expect(started.statusCode, started.body).toBe(200);
    const redirect = await consentAtProvider(started.json().authorizeUrl);
    const completed = await postCallback(account, 'Omron', redirect);
    expect(completed.statusCode, completed.body).toBe(200);

    const revoked = await account.post('/api/Participants/me/deviceRevoke', {
      participantId,
      brand: 'Omron',
    });
    expect(revoked.statusCode, revoked.body).toBe(200);
    const omron = (await connectionRow(db(), participantId)).filter(
      (row) => row.upstream === 'omron',
    );
    expect(omron[0]).toMatchObject({ authorizationStatus: 'revoked', refreshTokenEncrypted: null });

    // Another person's enrolment is not theirs.
    const stranger = await participantAccount(`stranger-${process.pid}@study.example.org`);
    await db()
      .update(users)
      .set({ emailVerifiedAt: new Date() })
      .where(eq(users.email, `stranger-${process.pid}@study.example.org`));
    expect((await stranger.get('/api/Participants/me/enrolments')).json()).toEqual({
      enrolments: [],
    });
    for (const path of [
      '/api/Participants/me/deviceAuthorization',
      '/api/Participants/me/deviceRevoke',
    ]) {
      expect((await stranger.post(path, { participantId, brand: 'Fitbit' })).statusCode, path).toBe(
        404,
      );
    }
    const fitbit = (
      await db()
        .select()
        .from(participantDevices)
        .where(eq(participantDevices.participantId, participantId))
    ).find((row) => row.upstream === 'google-health');
    expect(fitbit?.refreshTokenEncrypted).toBeTruthy();
  });
});
