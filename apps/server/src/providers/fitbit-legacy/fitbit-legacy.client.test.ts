import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AllSimulators, startAllSimulators } from '@trialpulse/provider-simulators';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import {
  type TokenSet,
  generateAuthorizationSecrets,
} from '../../modules/devices/core/provider-client';
import {
  ProviderAuthError,
  ProviderGoneError,
  ProviderInvalidGrantError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  errorTypeOf,
} from '../../modules/devices/core/provider-errors';
import {
  TokenLog,
  clearFaults,
  control,
  countRequests,
  expectFailure,
  injectFault,
  simulatorConfigs,
} from '../../modules/devices/core/test-support';
import { type FitbitLegacyClient, createFitbitLegacyClient } from './fitbit-legacy.client';

let sims: AllSimulators;
let client: FitbitLegacyClient;
let baseUrl: string;
const log = new TokenLog();

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  client = createFitbitLegacyClient(simulatorConfigs(sims).fitbitLegacy);
  baseUrl = sims.fitbitLegacy.baseUrl;
});
afterAll(() => sims?.close());
afterEach(async () => {
  await clearFaults(baseUrl);
  await control(baseUrl, 'POST', '/shutdown', { at: null });
});

async function link(account: string, on = client): Promise<TokenSet> {
  const { state, codeVerifier } = generateAuthorizationSecrets();
  const { redirect } = await submitConsent(await on.authorizationUrl({ state, codeVerifier }), {
    account,
  });
  expect(redirect.searchParams.get('state')).toBe(state);
  return log.add(await on.exchangeCode(redirect.searchParams.get('code') ?? '', codeVerifier));
}

/** Moves the simulator clock to `secondsIntoHour` of its current hour (the quota window). */
async function setClockInHour(secondsIntoHour: number): Promise<void> {
  const { now } = (await control(baseUrl, 'GET', '')) as { now: string };
  const hour = Math.floor(Date.parse(now) / 3_600_000) * 3_600_000;
  await control(baseUrl, 'POST', '/clock/set', { time: hour + secondsIntoHour * 1000 });
}

describe('legacy Fitbit client', () => {
  it('authorizes with Basic auth, lists devices, rotates the refresh token, revokes', async () => {
    const tokens = await link('ava-thompson');
    expect(tokens.providerUserId).toBe('7QXK2M');
    expect(tokens.expiresAt.getTime()).toBeGreaterThan(Date.now() + 7 * 3_600_000);

    expect(await client.getProfile(tokens.accessToken)).toMatchObject({
      userId: '7QXK2M',
      timeZone: 'America/New_York',
    });
    const devices = await client.listDevices(tokens.accessToken);
    expect(devices.map((d) => d.type).sort()).toEqual(['SCALE', 'TRACKER']);
    // Local time without an offset, as the legacy API gives it.
    expect(devices[0]?.lastSyncTime).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);

    const rotated = log.add(await client.refresh(tokens.refreshToken));
    expect(rotated.refreshToken).not.toBe(tokens.refreshToken);
    expect(rotated.providerUserId).toBe('7QXK2M');
    // Using the new pair ends Fitbit's grace window: the old refresh token is dead for good.
    await client.listDevices(rotated.accessToken);
    const dead = await expectFailure(
      client.refresh(tokens.refreshToken),
      ProviderInvalidGrantError,
      log,
    );
    expect(errorTypeOf(dead)).toBe('auth_error');

    await client.revoke(rotated.accessToken);
    await expectFailure(client.listDevices(rotated.accessToken), ProviderAuthError, log);
    await expectFailure(client.refresh(rotated.refreshToken), ProviderInvalidGrantError, log);
  });

  it('works as a public client (PKCE, client_id in the body)', async () => {
    const publicClient = createFitbitLegacyClient(simulatorConfigs(sims).fitbitLegacyPublic);
    const tokens = await link('ben-okafor', publicClient);
    const rotated = log.add(await publicClient.refresh(tokens.refreshToken));
    expect(await publicClient.listDevices(rotated.accessToken)).toHaveLength(2);
    await publicClient.revoke(rotated.refreshToken);
  });

  it('fails the exchange when the PKCE verifier does not match', async () => {
    const { state, codeVerifier } = generateAuthorizationSecrets();
    const { redirect } = await submitConsent(
      await client.authorizationUrl({ state, codeVerifier }),
      {
        account: 'carmen-diaz',
      },
    );
    // Fitbit echoes the verifier in its message; the error must not.
    const wrong = generateAuthorizationSecrets().codeVerifier;
    const error = await expectFailure(
      client.exchangeCode(redirect.searchParams.get('code') ?? '', wrong),
      ProviderInvalidGrantError,
      log,
    );
    expect(error.message).not.toContain(wrong);
  });

  it('maps 410 Gone after the shutdown to ProviderGoneError on every call', async () => {
    const tokens = await link('daniel-kim');
    const { now } = (await control(baseUrl, 'GET', '')) as { now: string };
    await control(baseUrl, 'POST', '/shutdown', { at: now });

    const gone = await expectFailure(
      client.listDevices(tokens.accessToken),
      ProviderGoneError,
      log,
    );
    expect(gone.status).toBe(410);
    expect(errorTypeOf(gone)).toBe('auth_error');
    await expectFailure(client.refresh(tokens.refreshToken), ProviderGoneError, log);
    await expectFailure(client.revoke(tokens.accessToken), ProviderGoneError, log);
  });

  describe('rate limit headers', () => {
    let tokens: TokenSet;
    beforeAll(async () => {
      tokens = await link('carmen-diaz');
    });

    it('gives up at once when Fitbit-Rate-Limit-Reset is beyond the cap', async () => {
      await setClockInHour(30);
      await injectFault(baseUrl, { kind: 'rate-limit', times: 'always' });
      const requests = countRequests(sims.fitbitLegacy, '/devices.json');
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderRateLimitedError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(error.retryAfterSeconds).toBeGreaterThan(3500);
      expect(errorTypeOf(error)).toBe('rate_limit');
    });

    it('waits out a short reset and retries', async () => {
      await setClockInHour(3599);
      await injectFault(baseUrl, { kind: 'rate-limit', times: 1 });
      const requests = countRequests(sims.fitbitLegacy, '/devices.json');
      expect(await client.listDevices(tokens.accessToken)).toHaveLength(1);
      requests.stop();
      expect(requests.count).toBe(2);
    });

    it('bounds the retries of a 5xx GET', async () => {
      await injectFault(baseUrl, { kind: 'server-error', status: 502, times: 'always' });
      const requests = countRequests(sims.fitbitLegacy, '/profile.json');
      const error = await expectFailure(
        client.getProfile(tokens.accessToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(3);
      expect(errorTypeOf(error)).toBe('server_error');
    });

    it('reports expired and revoked tokens as auth_error', async () => {
      await injectFault(baseUrl, { kind: 'expired-token' });
      const expired = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderAuthError,
        log,
      );
      expect(expired.code).toBe('expired_token');
      const refreshed = log.add(await client.refresh(tokens.refreshToken));
      await injectFault(baseUrl, { kind: 'revoked-token' });
      const revoked = await expectFailure(
        client.listDevices(refreshed.accessToken),
        ProviderAuthError,
        log,
      );
      expect(revoked.code).toBe('invalid_token');
    });
  });

  it('checked every error for tokens', () => {
    expect(log.size).toBeGreaterThan(8);
  });
});
