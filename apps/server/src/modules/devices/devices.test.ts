import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES, type DeviceBrandName } from '@trialpulse/shared';
import { deviceReadings, globalDeviceCatalog, participantDevices } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { decryptSecret } from '../../lib/crypto';
import { startAllSimulators, type AllSimulators } from '@trialpulse/provider-simulators';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import { createTestApp, type TestApp } from '../../test/test-app';
import { createStaffUser, createTeam, type TestClient, type TestUser } from '../../test/fixtures';
import { startTestSmtpServer, type TestSmtpServer } from '../mail/test-support';
import { readingsServiceFor } from '../sync/test-support';
import { addParticipant, createTrial } from '../participants/test-support';
import { auditSince, lastAuditId, signIn } from '../trials/test-support';
import { clearFaults, countRequests, injectFault } from './core/test-support';
import { createProviderRegistry } from './core/provider-registry';
import { providerSettingsFromConfig } from './core/provider-settings';
import { createDeviceConnectionsService } from './device-connections.service';
import { createDevicesRepository, type DevicesRepository } from './devices.repository';
import {
  allowAllBrands,
  connectionRow,
  consentAtProvider,
  dumpDatabase,
  linkAsStaff,
  postCallback,
  simulatorEnv,
} from './test-support';

/**
 * Device linking end to end over HTTP: the app (inject) talks to the four provider
 * simulators through its real provider clients; consent pages are driven like a browser;
 * consent mails go through a real SMTP server.
 */
let sims: AllSimulators;
let smtp: TestSmtpServer;
let ctx: TestApp;
const clock = createManualClock(new Date());
const db = () => ctx.database.db;
let teamId: number;
let admin: TestClient;
let user: TestClient;
let userAccount: TestUser;
let trialId: number;
let emailCounter = 0;

/** Every response body the tests saw, to show no provider token ever reached a client. */
const responses: string[] = [];
const seen = <T extends { body: string }>(response: T): T => {
  responses.push(response.body);
  return response;
};

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  smtp = await startTestSmtpServer();
  ctx = await createTestApp({ env: { ...simulatorEnv(sims), SMTP_URL: smtp.url }, clock });
  teamId = (await createTeam(db(), { maxTrials: 100, maxParticipants: 1000, hiddenFields: [] })).id;
  await allowAllBrands(db(), teamId);
  const adminAccount = await createStaffUser(db(), { role: 'Admin', teamId });
  userAccount = await createStaffUser(db(), { role: 'User', teamId });
  admin = await signIn(ctx.app, db(), adminAccount);
  user = await signIn(ctx.app, db(), userAccount);
  trialId = (await createTrial(db(), admin, [userAccount.email])).id;
});

afterAll(async () => {
  await ctx?.close();
  await smtp?.close();
  await sims?.close();
});

beforeEach(async () => {
  for (const sim of [sims.googleHealth, sims.fitbitLegacy, sims.omron, sims.dexcom]) {
    await clearFaults(sim.baseUrl);
  }
});

async function newParticipant(): Promise<{ id: number; email: string }> {
  const email = `device-${process.pid}-${++emailCounter}@study.example.org`;
  const added = await addParticipant(admin, { trialId, email });
  return { id: added.participantId, email };
}

async function linked(brand: DeviceBrandName, account?: string) {
  const participant = await newParticipant();
  const response = seen(
    await linkAsStaff(user, participant.id, brand, account ? { account } : {}, {
      email: participant.email,
    }),
  );
  expect(response.statusCode, response.body).toBe(200);
  // Time moves on after linking (a token obtained in the same instant counts as fresh).
  clock.advance(1000);
  return participant;
}

/** The plaintext tokens of a stored connection (the test holds the encryption key). */
async function storedTokens(participantId: number) {
  const [row] = await connectionRow(db(), participantId);
  const key = ctx.config.TOKEN_ENCRYPTION_KEY;
  return {
    row: row!,
    accessToken: row?.accessTokenEncrypted ? decryptSecret(row.accessTokenEncrypted, key) : null,
    refreshToken: row?.refreshTokenEncrypted ? decryptSecret(row.refreshTokenEncrypted, key) : null,
  };
}

describe('consent link by email', () => {
  it('mails a signed link that opens the provider consent and links the participant', async () => {
    const participant = await newParticipant();
    const before = await lastAuditId(db());
    const mailsBefore = smtp.received.length;
    const sent = seen(
      await user.post('/api/participantConsentEmail', {
        participantId: participant.id,
        brand: 'Fitbit',
      }),
    );
    expect(sent.statusCode, sent.body).toBe(200);
    expect(sent.json().message).toBe(DEVICE_MESSAGES.consentEmailSent);
    const [mail] = (await smtp.waitForMails(mailsBefore + 1)).slice(mailsBefore);
    expect(mail!.to).toEqual([participant.email]);
    const link = new URL(/http:\/\/localhost:5173\/PAFitbitConsentPage\?\S+/.exec(mail!.body)![0]);
    expect(link.searchParams.get('id')).toBe(String(participant.id));
    const token = link.searchParams.get('token')!;
    expect(token.length).toBeGreaterThanOrEqual(40);

    // The public consent page: no session at all.
    const visitor = new (user.constructor as new (app: typeof ctx.app) => TestClient)(ctx.app);
    const started = seen(
      await visitor.post('/api/consentLinkAuthorize', {
        participantId: participant.id,
        token,
        brand: 'Fitbit',
      }),
    );
    expect(started.statusCode, started.body).toBe(200);
    const authorizeUrl = new URL(started.json().authorizeUrl);
    expect(authorizeUrl.origin).toBe(sims.googleHealth.baseUrl);
    expect(authorizeUrl.searchParams.get('code_challenge_method')).toBe('S256');
    // The state is a random nonce, not the participant id.
    expect(authorizeUrl.searchParams.get('state')).not.toBe(String(participant.id));
    expect(authorizeUrl.searchParams.get('state')!.length).toBeGreaterThanOrEqual(32);

    const { redirect } = await submitConsent(authorizeUrl, { account: 'daniel-kim' });
    expect(redirect.pathname).toBe('/fitbit-callback');
    const completed = seen(await postCallback(visitor, 'Fitbit', redirect));
    expect(completed.statusCode, completed.body).toBe(200);
    expect(completed.json()).toMatchObject({
      participantId: participant.id,
      trialId,
      brand: 'Fitbit',
    });

    const isAuth = seen(await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`));
    expect(isAuth.json()).toEqual({
      message: 'found',
      status: 'authorized',
      upstream: 'google-health',
    });
    const devices = seen(await user.get(`/api/fitbitDevices/${participant.id}`));
    expect(devices.statusCode, devices.body).toBe(200);
    // The device spec §7 names the device list's field `type`, not `deviceType`.
    const tracker = devices.json().devices.find((d: { type: string }) => d.type === 'TRACKER');
    expect(tracker).toMatchObject({ device: 'Fitbit', hasError: false, errorType: null });
    expect(tracker).not.toHaveProperty('deviceType');
    expect(typeof tracker.batteryLevel).toBe('number');
    expect(tracker.lastSyncTime).toMatch(/^\d{4}-\d\d-\d\dT/);

    const actions = (await auditSince(db(), before)).map((row) => row.action);
    expect(actions).toEqual(
      expect.arrayContaining([
        'device.consent_link.sent',
        'device.authorization.start',
        'device.link',
      ]),
    );
    // The link did its job: it cannot start another authorisation.
    const again = await visitor.post('/api/consentLinkAuthorize', {
      participantId: participant.id,
      token,
      brand: 'Fitbit',
    });
    expect(again.statusCode).toBe(400);
    expect(again.json().message).toBe(DEVICE_MESSAGES.consentLinkInvalid);
  });

  it('refuses a wrong token, another participant, another brand and an expired link', async () => {
    const participant = await newParticipant();
    const other = await newParticipant();
    const mailsBefore = smtp.received.length;
    await user.post('/api/participantConsentEmail', {
      participantId: participant.id,
      brand: 'Omron',
    });
    const [mail] = (await smtp.waitForMails(mailsBefore + 1)).slice(mailsBefore);
    const link = new URL(/http:\/\/localhost:5173\/OmronConsentPage\?\S+/.exec(mail!.body)![0]);
    const token = link.searchParams.get('token')!;
    const attempt = (body: Record<string, unknown>) => user.post('/api/consentLinkAuthorize', body);

    for (const body of [
      { participantId: participant.id, token: `${token.slice(0, -2)}xx`, brand: 'Omron' },
      { participantId: other.id, token, brand: 'Omron' },
      { participantId: participant.id, token, brand: 'Fitbit' },
    ]) {
      const refused = await attempt(body);
      expect(refused.statusCode, JSON.stringify(body)).toBe(400);
      expect(refused.json()).toMatchObject({
        message: DEVICE_MESSAGES.consentLinkInvalid,
        displayToUser: true,
      });
    }
    const ok = await attempt({ participantId: participant.id, token, brand: 'Omron' });
    expect(ok.statusCode, ok.body).toBe(200);

    clock.advance(73 * 3_600_000);
    try {
      const expired = await attempt({ participantId: participant.id, token, brand: 'Omron' });
      expect(expired.statusCode).toBe(400);
      expect(expired.json().message).toBe(DEVICE_MESSAGES.consentLinkInvalid);
    } finally {
      clock.advance(-73 * 3_600_000);
    }
    expect(await connectionRow(db(), participant.id)).toEqual([]);
  });
});

describe('callbacks', () => {
  it('refuses a wrong, replayed, foreign-brand or expired state with 422', async () => {
    const participant = await newParticipant();
    const started = await user.post('/api/deviceAuthorization', {
      participantId: participant.id,
      brand: 'Fitbit',
    });
    const { redirect } = await submitConsent(started.json().authorizeUrl);
    const code = redirect.searchParams.get('code')!;
    const state = redirect.searchParams.get('state')!;

    const wrong = await user.post('/api/fitbit-callback', { authCode: code, state: `${state}x` });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json()).toMatchObject({
      message: DEVICE_MESSAGES.invalidRequest,
      displayToUser: true,
    });
    const otherBrand = await user.post('/api/omron-callback', { authCode: code, state });
    expect(otherBrand.statusCode).toBe(422);
    const otherParticipant = await user.post('/api/fitbit-callback', {
      authCode: code,
      state,
      participantId: participant.id + 1,
    });
    expect(otherParticipant.statusCode).toBe(422);

    const ok = await user.post('/api/fitbit-callback', {
      authCode: code,
      state,
      participantId: String(participant.id),
    });
    expect(ok.statusCode, ok.body).toBe(200);
    const replayed = await user.post('/api/fitbit-callback', { authCode: code, state });
    expect(replayed.statusCode).toBe(422);

    const late = await user.post('/api/deviceAuthorization', {
      participantId: participant.id,
      brand: 'Fitbit',
    });
    const lateConsent = await submitConsent(late.json().authorizeUrl);
    clock.advance(16 * 60_000);
    try {
      const expired = await postCallback(user, 'Fitbit', lateConsent.redirect);
      expect(expired.statusCode).toBe(422);
    } finally {
      clock.advance(-16 * 60_000);
    }
  });

  it('Deny answers the brand-specific error and stores nothing', async () => {
    const participant = await newParticipant();
    for (const [brand, message] of [
      ['Fitbit', DEVICE_MESSAGES.fitbitAuthorizationFailed],
      ['Omron', DEVICE_MESSAGES.omronAuthorizationFailed],
      ['Dexcom', DEVICE_MESSAGES.authorizationFailed],
    ] as const) {
      const denied = await linkAsStaff(user, participant.id, brand, { decision: 'deny' });
      expect(denied.statusCode, denied.body).toBe(400);
      expect(denied.json()).toMatchObject({ message, displayToUser: true });
    }
    expect(await connectionRow(db(), participant.id)).toEqual([]);
  });

  it('links Omron and Dexcom; Dexcom checks the participant email', async () => {
    const omron = await linked('Omron');
    expect((await user.get(`/api/omronIsParticipantAuth/${omron.id}`)).json().message).toBe(
      'found',
    );
    const omronDevices = await user.get(`/api/omronDevices/${omron.id}`);
    expect(omronDevices.statusCode, omronDevices.body).toBe(200);

    const participant = await newParticipant();
    const started = await user.post('/api/deviceAuthorization', {
      participantId: participant.id,
      brand: 'Dexcom',
    });
    expect(started.json().authorizeUrl).toContain(sims.dexcom.baseUrl);
    const redirect = await consentAtProvider(started.json().authorizeUrl);
    expect(redirect.pathname).toBe('/dexcom-callback');
    const mismatch = await postCallback(user, 'Dexcom', redirect, {
      email: 'someone-else@study.example.org',
    });
    expect(mismatch.statusCode).toBe(400);
    expect(mismatch.json().message).toBe(DEVICE_MESSAGES.dexcomEmailMismatch);
    const ok = seen(
      await postCallback(user, 'Dexcom', redirect, { email: participant.email.toUpperCase() }),
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect((await user.get(`/api/dexcomIsParticipantAuth/${participant.id}`)).json().message).toBe(
      'found',
    );
    const dexcomDevices = seen(await user.get(`/api/dexcomDevices/${participant.id}`));
    expect(dexcomDevices.json().devices[0]).toMatchObject({ device: 'Dexcom', hasError: false });
  });

  it('answers the client ids without a session', async () => {
    const visitor = new (user.constructor as new (app: typeof ctx.app) => TestClient)(ctx.app);
    expect((await visitor.get('/api/fitbitClientId')).json()).toEqual({
      FITBIT_CLIENT_ID: 'trialpulse-demo-google',
    });
    expect((await visitor.get('/api/omronClientId')).json()).toEqual({
      OMRON_CLIENT_ID: 'trialpulse-demo-omron',
    });
    expect((await visitor.get('/api/dexcomClientId')).json()).toEqual({
      DEXCOM_CLIENT_ID: 'trialpulse-demo-dexcom',
    });
  });
});

describe('token lifecycle', () => {
  it('20 concurrent refreshes of one connection make exactly one refresh call', async () => {
    const participant = await linked('Fitbit');
    const before = await storedTokens(participant.id);
    const tokenCalls = countRequests(sims.googleHealth, '/token');
    try {
      const results = await Promise.all(
        Array.from({ length: 20 }, () =>
          user.post('/api/fitbitRefreshToken', { id: participant.id }),
        ),
      );
      for (const result of results) expect(result.statusCode, result.body).toBe(200);
      expect(tokenCalls.count).toBe(1);
    } finally {
      tokenCalls.stop();
    }
    const after = await storedTokens(participant.id);
    expect(after.accessToken).not.toBe(before.accessToken);
    expect(after.refreshToken).toBeTruthy();
    // The new access token works at the provider.
    const devices = await user.get(`/api/fitbitDevices/${participant.id}`);
    expect(devices.json().devices.every((d: { hasError: boolean }) => !d.hasError)).toBe(true);
  });

  it('two app processes on one database still refresh once (row lock)', async () => {
    const participant = await linked('Omron');
    const second = await createTestApp({
      env: {
        ...simulatorEnv(sims),
        APP_SECRET: ctx.config.APP_SECRET,
        TOKEN_ENCRYPTION_KEY: ctx.config.TOKEN_ENCRYPTION_KEY,
      },
      database: ctx.database,
      clock,
    });
    try {
      const userOnSecond = await signIn(second.app, db(), userAccount);
      const tokenCalls = countRequests(sims.omron, '/connect/token');
      try {
        const results = await Promise.all(
          Array.from({ length: 20 }, (_, i) =>
            (i % 2 ? user : userOnSecond).post('/api/omronRefreshToken', { id: participant.id }),
          ),
        );
        for (const result of results) expect(result.statusCode, result.body).toBe(200);
        expect(tokenCalls.count).toBe(1);
      } finally {
        tokenCalls.stop();
      }
    } finally {
      await second.close();
    }
  });

  it('an expired access token is refreshed before use', async () => {
    const participant = await linked('Fitbit');
    const before = await storedTokens(participant.id);
    await db()
      .update(participantDevices)
      .set({ tokenExpiresAt: new Date(clock.now().getTime() - 1000) })
      .where(eq(participantDevices.id, before.row.id));
    const tokenCalls = countRequests(sims.googleHealth, '/token');
    try {
      const devices = await user.get(`/api/fitbitDevices/${participant.id}`);
      expect(devices.statusCode, devices.body).toBe(200);
      expect(devices.json().devices.some((d: { hasError: boolean }) => d.hasError)).toBe(false);
      expect(tokenCalls.count).toBe(1);
    } finally {
      tokenCalls.stop();
    }
    expect((await storedTokens(participant.id)).accessToken).not.toBe(before.accessToken);
  });

  it('the database going away after Dexcom rotated the refresh token: the new tokens are stored once it is back, and they work', async () => {
    const participant = await linked('Dexcom');
    const before = await storedTokens(participant.id);
    // The first write of the refresh fails as node-postgres fails when the server restarts
    // (SQLSTATE 57P01): Dexcom has already spent the old refresh token and issued a new one.
    const repository = createDevicesRepository(db());
    let writes = 0;
    const restarting: DevicesRepository = {
      ...repository,
      async updateConnection(...args: Parameters<DevicesRepository['updateConnection']>) {
        writes += 1;
        if (writes === 1)
          throw Object.assign(new Error('terminating connection due to administrator command'), {
            code: '57P01',
          });
        return repository.updateConnection(...args);
      },
    };
    const connections = createDeviceConnectionsService({
      repository: restarting,
      providers: createProviderRegistry(providerSettingsFromConfig(ctx.config)),
      clock,
      encryptionKey: ctx.config.TOKEN_ENCRYPTION_KEY,
    });
    const tokenCalls = countRequests(sims.dexcom, '/oauth2/token');
    try {
      expect(
        await connections.refresh(
          teamId,
          participant.id,
          'Dexcom',
          { userId: null },
          { requestId: 'db-restart' },
        ),
      ).toMatchObject({ code: 200 });
      expect(tokenCalls.count).toBe(1);
    } finally {
      tokenCalls.stop();
    }
    expect(writes).toBe(2);
    const after = await storedTokens(participant.id);
    expect(after.row).toMatchObject({ needsReconsent: false, authorizationStatus: 'authorized' });
    expect(after.refreshToken).not.toBe(before.refreshToken);
    // The stored refresh token is the live one: Dexcom accepts it (the spent one it refuses).
    const again = await user.post('/api/dexcomRefreshToken', { id: participant.id });
    expect(again.statusCode, again.body).toBe(200);
    expect((await storedTokens(participant.id)).row.needsReconsent).toBe(false);
  });

  it('invalid_grant marks the connection as needing re-consent and keeps its data', async () => {
    const participant = await linked('Fitbit');
    const [row] = await connectionRow(db(), participant.id);
    await readingsServiceFor(db()).store([
      {
        teamId,
        participantId: participant.id,
        brand: 'Fitbit',
        upstream: row!.upstream,
        metricKey: 'steps',
        recordedAt: new Date('2026-11-01T00:00:00Z'),
        value: 8123,
      },
    ]);
    await injectFault(sims.googleHealth.baseUrl, { kind: 'invalid-grant', target: 'token' });
    const before = await lastAuditId(db());
    const refreshed = await user.post('/api/fitbitRefreshToken', { id: participant.id });
    expect(refreshed.statusCode).toBe(502);
    expect(refreshed.json()).toMatchObject({ reason: DEVICE_ERROR_REASONS.refreshFailed });

    const isAuth = await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`);
    expect(isAuth.json()).toEqual({
      message: 'not found',
      status: 'needs_reconsent',
      upstream: 'google-health',
    });
    const [after] = await connectionRow(db(), participant.id);
    expect(after).toMatchObject({
      needsReconsent: true,
      accessTokenEncrypted: null,
      refreshTokenEncrypted: null,
    });
    const points = await db()
      .select()
      .from(deviceReadings)
      .where(eq(deviceReadings.participantId, participant.id));
    expect(points).toHaveLength(1);
    expect((await auditSince(db(), before)).map((r) => r.action)).toContain(
      'device.connection.needs_reconsent',
    );

    // A new consent brings it back.
    const relinked = await linkAsStaff(user, participant.id, 'Fitbit');
    expect(relinked.statusCode, relinked.body).toBe(200);
    expect((await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json().status).toBe(
      'authorized',
    );
  });

  it('429 and 5xx from the provider become error entries with the spec error types', async () => {
    const participant = await linked('Fitbit');
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'rate-limit',
      target: 'api',
      times: 'always',
    });
    const limited = await user.get(`/api/fitbitDevices/${participant.id}`);
    expect(limited.statusCode).toBe(200);
    expect(limited.json().devices).toEqual([
      expect.objectContaining({ hasError: true, errorType: 'rate_limit' }),
    ]);
    await clearFaults(sims.googleHealth.baseUrl);
    await injectFault(sims.googleHealth.baseUrl, {
      kind: 'server-error',
      target: 'api',
      times: 'always',
      status: 503,
    });
    const failing = await user.get(`/api/fitbitDevices/${participant.id}`);
    expect(failing.json().devices).toEqual([
      expect.objectContaining({ hasError: true, errorType: 'server_error' }),
    ]);
    await clearFaults(sims.googleHealth.baseUrl);
    // The connection is not harmed: the next check works.
    const recovered = await user.get(`/api/fitbitDevices/${participant.id}`);
    expect(recovered.json().devices.some((d: { hasError: boolean }) => d.hasError)).toBe(false);
    expect((await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json().message).toBe(
      'found',
    );
  });

  it("revoke calls the provider's revoke and deletes the tokens", async () => {
    const participant = await linked('Fitbit');
    const noCsrf = await user.get(`/api/revokeAccessToken/${participant.id}`);
    expect(noCsrf.statusCode).toBe(403);
    expect((await storedTokens(participant.id)).refreshToken).toBeTruthy();

    const revokeCalls = countRequests(sims.googleHealth, '/revoke');
    const before = await lastAuditId(db());
    try {
      const revoked = seen(await user.getWithCsrf(`/api/revokeAccessToken/${participant.id}`));
      expect(revoked.statusCode, revoked.body).toBe(200);
      expect(revoked.json().code).toBe(200);
      expect(revokeCalls.count).toBe(1);
    } finally {
      revokeCalls.stop();
    }
    const [row] = await connectionRow(db(), participant.id);
    expect(row).toMatchObject({
      accessTokenEncrypted: null,
      refreshTokenEncrypted: null,
      authorizationStatus: 'revoked',
    });
    expect((await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json()).toMatchObject(
      {
        message: 'not found',
        status: 'revoked',
      },
    );
    expect((await auditSince(db(), before)).map((r) => r.action)).toContain('device.token.revoke');

    const omron = await linked('Omron');
    const omronRevokes = countRequests(sims.omron, '/connect/revocation');
    try {
      const revokedOmron = await user.post('/api/omronRevokeToken', { id: omron.id });
      expect(revokedOmron.json()).toEqual({ code: 200, message: DEVICE_MESSAGES.revoked });
      expect(omronRevokes.count).toBe(1);
    } finally {
      omronRevokes.stop();
    }
    expect((await user.get(`/api/omronIsParticipantAuth/${omron.id}`)).json().message).toBe(
      'not found',
    );

    const dexcom = await linked('Dexcom');
    const revokedDexcom = await user.post('/api/dexcomRevokeToken', { id: dexcom.id });
    expect(revokedDexcom.statusCode, revokedDexcom.body).toBe(200);
    expect((await storedTokens(dexcom.id)).refreshToken).toBeNull();
  });

  it('deleting a participant revokes their grants at the provider first', async () => {
    const participant = await linked('Omron');
    const revokeCalls = countRequests(sims.omron, '/connect/revocation');
    try {
      const deleted = await user.request('DELETE', '/api/participant', { id: participant.id });
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(revokeCalls.count).toBe(1);
    } finally {
      revokeCalls.stop();
    }
    expect(await connectionRow(db(), participant.id)).toEqual([]);
  });

  it("deleting a trial with cascade revokes every participant's grants at the providers", async () => {
    const trial = await createTrial(db(), admin, [userAccount.email]);
    const inTrial = async (brand: DeviceBrandName) => {
      const email = `cascade-${process.pid}-${++emailCounter}@study.example.org`;
      const { participantId } = await addParticipant(admin, { trialId: trial.id, email });
      const response = await linkAsStaff(user, participantId, brand, {}, { email });
      expect(response.statusCode, response.body).toBe(200);
      return (await storedTokens(participantId)).refreshToken!;
    };
    const fitbitToken = await inTrial('Fitbit');
    const omronToken = await inTrial('Omron');
    expect(fitbitToken).toBeTruthy();
    expect(omronToken).toBeTruthy();

    const deleted = await admin.request('DELETE', '/api/userTrials', {
      trialId: trial.id,
      cascade: true,
    });
    expect(deleted.statusCode, deleted.body).toBe(200);

    // Ask each simulator over its control API to revoke the grant behind the stored token:
    // it answers how many grants were still live, 0 when TrialPulse already revoked it.
    for (const [sim, token] of [
      [sims.googleHealth, fitbitToken],
      [sims.omron, omronToken],
    ] as const) {
      const response = await fetch(`${sim.baseUrl}/__control/tokens/revoke`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
      });
      expect(response.status).toBe(200);
      expect(await response.json(), sim.baseUrl).toEqual({ count: 0 });
    }
  });

  it('a legacy Fitbit connection shows as needing re-consent and is re-linked through Google Health', async () => {
    const participant = await newParticipant();
    const legacyStart = await user.post('/api/deviceAuthorization', {
      participantId: participant.id,
      brand: 'Fitbit',
    });
    expect(legacyStart.statusCode).toBe(200);
    // A connection made before the shutdown: stored as the legacy upstream, refused now.
    const [catalog] = await db()
      .select({ globalDeviceCatalogId: globalDeviceCatalog.id })
      .from(globalDeviceCatalog)
      .where(eq(globalDeviceCatalog.manufacturer, 'Fitbit'));
    await db()
      .insert(participantDevices)
      .values({
        teamId,
        participantId: participant.id,
        globalDeviceCatalogId: catalog!.globalDeviceCatalogId,
        upstream: 'fitbit-legacy',
        authorizationStatus: 'authorized',
        authorizationDate: new Date('2026-03-01T00:00:00Z'),
        needsReconsent: true,
      });
    const isAuth = await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`);
    expect(isAuth.json()).toEqual({
      message: 'not found',
      status: 'needs_reconsent',
      upstream: 'fitbit-legacy',
    });
    const connections = await user.get(`/api/participantConnections/${participant.id}`);
    expect(
      connections.json().connections.find((c: { brand: string }) => c.brand === 'Fitbit'),
    ).toMatchObject({
      status: 'needs_reconsent',
      upstream: 'fitbit-legacy',
    });
    const relinked = await linkAsStaff(user, participant.id, 'Fitbit');
    expect(relinked.statusCode, relinked.body).toBe(200);
    expect((await user.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json()).toEqual({
      message: 'found',
      status: 'authorized',
      upstream: 'google-health',
    });
  });
});

describe('secrets', () => {
  it('no plaintext provider token in the database, in any response or in the logs', async () => {
    const participants = [await linked('Fitbit'), await linked('Omron'), await linked('Dexcom')];
    await user.post('/api/fitbitRefreshToken', { id: participants[0]!.id });
    const tokens: string[] = [];
    for (const participant of participants) {
      const stored = await storedTokens(participant.id);
      tokens.push(stored.accessToken!, stored.refreshToken!);
    }
    expect(tokens.every((token) => typeof token === 'string' && token.length >= 16)).toBe(true);
    for (const participant of participants) {
      responses.push((await user.get(`/api/participantConnections/${participant.id}`)).body);
      responses.push((await admin.get('/api/deviceConnections/fitbit')).body);
    }
    const dump = await dumpDatabase(db());
    expect(dump).toContain('device.link');
    const logs = ctx.logLines().join('\n');
    for (const token of tokens) {
      expect(dump.includes(token)).toBe(false);
      expect(responses.some((body) => body.includes(token))).toBe(false);
      expect(logs.includes(token)).toBe(false);
    }
  });
});

describe('legacy Fitbit Web API after its shutdown', () => {
  it('a legacy connection whose API answers 410 Gone is marked as needing re-consent', async () => {
    const participant = await newParticipant();
    // Linked through the legacy API while it still answered (the simulators here keep it on).
    const legacy = await startAllSimulators({
      fitbitLegacyShutdownAt: new Date(Date.now() + 60_000),
    });
    const app = await createTestApp({
      env: {
        ...simulatorEnv(sims),
        FITBIT_LEGACY_BASE_URL: legacy.fitbitLegacy.baseUrl,
        APP_SECRET: ctx.config.APP_SECRET,
        TOKEN_ENCRYPTION_KEY: ctx.config.TOKEN_ENCRYPTION_KEY,
      },
      database: ctx.database,
      clock,
    });
    try {
      const { createFitbitLegacyClient } =
        await import('../../providers/fitbit-legacy/fitbit-legacy.client');
      const { providerSettingsFromConfig } = await import('./core/provider-settings');
      const { encryptSecret } = await import('../../lib/crypto');
      const client = createFitbitLegacyClient(
        providerSettingsFromConfig(app.config)['fitbit-legacy']!,
      );
      const { generateAuthorizationSecrets } = await import('./core/provider-client');
      const secrets = generateAuthorizationSecrets();
      const url = await client.authorizationUrl({
        state: secrets.state,
        codeVerifier: secrets.codeVerifier,
      });
      const { redirect } = await submitConsent(url);
      const tokens = await client.exchangeCode(
        redirect.searchParams.get('code')!,
        secrets.codeVerifier,
      );
      const [catalog] = await db()
        .select({ globalDeviceCatalogId: globalDeviceCatalog.id })
        .from(globalDeviceCatalog)
        .where(eq(globalDeviceCatalog.manufacturer, 'Fitbit'));
      const key = ctx.config.TOKEN_ENCRYPTION_KEY;
      await db()
        .insert(participantDevices)
        .values({
          teamId,
          participantId: participant.id,
          globalDeviceCatalogId: catalog!.globalDeviceCatalogId,
          upstream: 'fitbit-legacy',
          accessTokenEncrypted: encryptSecret(tokens.accessToken, key),
          refreshTokenEncrypted: encryptSecret(tokens.refreshToken, key),
          tokenExpiresAt: new Date(clock.now().getTime() + 3_600_000),
          authorizationStatus: 'authorized',
          authorizationDate: clock.now(),
        });
      const userOnApp = await signIn(app.app, db(), userAccount);
      expect(
        (await userOnApp.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json().upstream,
      ).toBe('fitbit-legacy');
      // The shutdown comes: the legacy API answers 410 Gone from now on.
      await fetch(`${legacy.fitbitLegacy.baseUrl}/__control/clock/advance`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ minutes: 5 }),
      });
      const devices = await userOnApp.get(`/api/fitbitDevices/${participant.id}`);
      expect(devices.json().devices).toEqual([
        expect.objectContaining({ hasError: true, errorType: 'auth_error' }),
      ]);
      expect(
        (await userOnApp.get(`/api/fitbitIsParticipantAuth/${participant.id}`)).json(),
      ).toEqual({
        message: 'not found',
        status: 'needs_reconsent',
        upstream: 'fitbit-legacy',
      });
    } finally {
      await app.close();
      await legacy.close();
    }
  });
});
