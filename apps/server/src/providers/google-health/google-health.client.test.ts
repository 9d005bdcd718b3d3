import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AllSimulators, startAllSimulators } from '@trialpulse/provider-simulators';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import {
  type TokenSet,
  generateAuthorizationSecrets,
} from '../../modules/devices/core/provider-client';
import {
  ProviderAuthError,
  ProviderInvalidGrantError,
  ProviderPermissionError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  errorTypeOf,
} from '../../modules/devices/core/provider-errors';
import {
  TokenLog,
  clearFaults,
  countRequests,
  expectFailure,
  injectFault,
  simulatorConfigs,
} from '../../modules/devices/core/test-support';
import { type GoogleHealthClient, createGoogleHealthClient } from './google-health.client';

let sims: AllSimulators;
let client: GoogleHealthClient;
let baseUrl: string;
const log = new TokenLog();

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  client = createGoogleHealthClient(simulatorConfigs(sims).googleHealth);
  baseUrl = sims.googleHealth.baseUrl;
});
afterAll(() => sims?.close());
afterEach(() => clearFaults(baseUrl));

/** The whole browser round trip: consent page, redirect with state, code exchange. */
async function link(account = 'ava-thompson', on = client): Promise<TokenSet> {
  const { state, codeVerifier } = generateAuthorizationSecrets();
  const { redirect } = await submitConsent(await on.authorizationUrl({ state, codeVerifier }), {
    account,
  });
  expect(redirect.searchParams.get('state')).toBe(state);
  return log.add(await on.exchangeCode(redirect.searchParams.get('code') ?? '', codeVerifier));
}

describe('Google Health client', () => {
  it('authorizes with PKCE and offline access, lists devices, refreshes, revokes', async () => {
    const url = await client.authorizationUrl({ state: 'state-1', codeVerifier: 'v'.repeat(43) });
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('access_type')).toBe('offline');
    expect(url.searchParams.get('prompt')).toBe('consent');

    const tokens = await link('ava-thompson');
    expect(tokens.expiresAt.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    expect(tokens.scopes).toContain(
      'https://www.googleapis.com/auth/googlehealth.settings.readonly',
    );

    expect(await client.getIdentity(tokens.accessToken)).toEqual({
      healthUserId: '1173016576421350648',
      legacyUserId: '7QXK2M',
    });
    const devices = await client.listDevices(tokens.accessToken);
    expect(devices.map((d) => d.type).sort()).toEqual(['SCALE', 'TRACKER']);
    for (const device of devices) {
      expect(device.battery).toMatch(/^(High|Medium|Low|Empty)$/);
      expect(device.batteryLevel).toBeGreaterThanOrEqual(0);
      expect(device.lastSyncTime).toMatch(/^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/);
    }
    expect(devices.find((d) => d.type === 'SCALE')).toMatchObject({
      deviceVersion: 'Aria Air',
      batteryLevel: 64,
      battery: 'High',
    });

    // Google does not rotate: the refresh token stays, the access token is new.
    const refreshed = log.add(await client.refresh(tokens.refreshToken));
    expect(refreshed.refreshToken).toBe(tokens.refreshToken);
    expect(refreshed.accessToken).not.toBe(tokens.accessToken);
    await client.refresh(tokens.refreshToken).then((again) => log.add(again));
    expect(await client.listDevices(refreshed.accessToken)).toHaveLength(2);

    await client.revoke(refreshed.accessToken);
    const refused = await expectFailure(
      client.listDevices(refreshed.accessToken),
      ProviderAuthError,
      log,
    );
    expect(errorTypeOf(refused)).toBe('auth_error');
    await expectFailure(client.refresh(tokens.refreshToken), ProviderInvalidGrantError, log);
    // Revoking what Google already forgot counts as done.
    await client.revoke(refreshed.refreshToken);
  });

  it('fails the exchange when the PKCE verifier does not match', async () => {
    const { state, codeVerifier } = generateAuthorizationSecrets();
    const { redirect } = await submitConsent(
      await client.authorizationUrl({ state, codeVerifier }),
      {
        account: 'ben-okafor',
      },
    );
    const other = generateAuthorizationSecrets().codeVerifier;
    const error = await expectFailure(
      client.exchangeCode(redirect.searchParams.get('code') ?? '', other),
      ProviderInvalidGrantError,
      log,
    );
    expect(error.code).toBe('invalid_grant');
  });

  it('reports an empty battery and an account without Google Health', async () => {
    const carmen = await link('carmen-diaz');
    expect(await client.listDevices(carmen.accessToken)).toEqual([
      expect.objectContaining({ type: 'TRACKER', battery: 'Empty', batteryLevel: 0 }),
    ]);
    const eve = await link('eve-schneider');
    const notLinked = await expectFailure(
      client.listDevices(eve.accessToken),
      ProviderPermissionError,
      log,
    );
    expect(notLinked.code).toBe('ACCOUNT_NOT_LINKED');
    expect(errorTypeOf(notLinked)).toBe('auth_error');
  });

  describe('forced faults', () => {
    let tokens: TokenSet;
    beforeAll(async () => {
      tokens = await link('daniel-kim');
    });

    it('retries a 5xx GET a bounded number of times, then reports server_error', async () => {
      await injectFault(baseUrl, { kind: 'server-error', status: 503, times: 'always' });
      const requests = countRequests(sims.googleHealth, '/pairedDevices');
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(3);
      expect(errorTypeOf(error)).toBe('server_error');
    });

    it('recovers when a retried GET succeeds', async () => {
      await injectFault(baseUrl, { kind: 'server-error', times: 1 });
      const requests = countRequests(sims.googleHealth, '/pairedDevices');
      expect(await client.listDevices(tokens.accessToken)).toHaveLength(1);
      requests.stop();
      expect(requests.count).toBe(2);
    });

    it('backs off on 429 without Retry-After, then reports rate_limit with a wait', async () => {
      await injectFault(baseUrl, { kind: 'rate-limit', times: 'always' });
      const requests = countRequests(sims.googleHealth, '/pairedDevices');
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderRateLimitedError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(3);
      expect(error.retryAfterSeconds).toBe(60);
      expect(errorTypeOf(error)).toBe('rate_limit');
    });

    it('reports a dropped connection as connection_error after the retries', async () => {
      await injectFault(baseUrl, { kind: 'drop-connection', times: 'always' });
      const requests = countRequests(sims.googleHealth, '/identity');
      const error = await expectFailure(
        client.getIdentity(tokens.accessToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(3);
      expect(error.reason).toBe('network');
      expect(errorTypeOf(error)).toBe('connection_error');
    });

    it('reports truncated JSON as processing_error without retrying', async () => {
      await injectFault(baseUrl, { kind: 'truncated-json' });
      const requests = countRequests(sims.googleHealth, '/pairedDevices');
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(errorTypeOf(error)).toBe('processing_error');
    });

    it('never retries a refresh POST, whatever the failure', async () => {
      await injectFault(baseUrl, { kind: 'server-error', target: 'token', times: 'always' });
      const requests = countRequests(sims.googleHealth, '/token');
      const error = await expectFailure(
        client.refresh(tokens.refreshToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(errorTypeOf(error)).toBe('server_error');
    });

    it('times out a slow refresh once, as connection_error', async () => {
      const impatient = createGoogleHealthClient({
        ...simulatorConfigs(sims).googleHealth,
        timeoutMs: 200,
      });
      await injectFault(baseUrl, { kind: 'slow', target: 'token', delayMs: 1_500 });
      const requests = countRequests(sims.googleHealth, '/token');
      const error = await expectFailure(
        impatient.refresh(tokens.refreshToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(error.reason).toBe('timeout');
      expect(errorTypeOf(error)).toBe('connection_error');
    });

    it('maps invalid_grant on refresh to ProviderInvalidGrantError', async () => {
      await injectFault(baseUrl, { kind: 'invalid-grant' });
      const error = await expectFailure(
        client.refresh(tokens.refreshToken),
        ProviderInvalidGrantError,
        log,
      );
      expect(errorTypeOf(error)).toBe('auth_error');
    });

    it('reports an expired access token as auth_error without retrying', async () => {
      await injectFault(baseUrl, { kind: 'expired-token' });
      const requests = countRequests(sims.googleHealth, '/pairedDevices');
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderAuthError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(errorTypeOf(error)).toBe('auth_error');
      // The caller's answer: refresh, then go on.
      const refreshed = log.add(await client.refresh(tokens.refreshToken));
      expect(await client.listDevices(refreshed.accessToken)).toHaveLength(1);
    });
  });

  it('issued tokens and checked every error for them', () => {
    expect(log.size).toBeGreaterThan(6);
  });
});
