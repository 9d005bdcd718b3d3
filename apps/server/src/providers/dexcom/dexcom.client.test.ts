import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AllSimulators, startAllSimulators } from '@trialpulse/provider-simulators';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import {
  type TokenSet,
  generateAuthorizationSecrets,
} from '../../modules/devices/core/provider-client';
import {
  ProviderInvalidGrantError,
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
import { type DexcomClient, createDexcomClient, dexcomWindows } from './dexcom.client';

let sims: AllSimulators;
let client: DexcomClient;
let baseUrl: string;
const log = new TokenLog();
const DAY = 86_400_000;

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  client = createDexcomClient(simulatorConfigs(sims).dexcom);
  baseUrl = sims.dexcom.baseUrl;
});
afterAll(() => sims?.close());
afterEach(() => clearFaults(baseUrl));

async function link(account: string): Promise<TokenSet> {
  const { state, codeVerifier } = generateAuthorizationSecrets();
  const url = await client.authorizationUrl({ state, codeVerifier });
  // Dexcom has no PKCE: the verifier is not used.
  expect(url.searchParams.has('code_challenge')).toBe(false);
  const { redirect } = await submitConsent(url.href, { account, decision: 'allow' });
  expect(redirect.searchParams.get('state')).toBe(state);
  return log.add(await client.exchangeCode(redirect.searchParams.get('code') ?? '', codeVerifier));
}

describe('Dexcom client', () => {
  it('authorizes, lists devices, reads EGVs in 30-day windows, rotates on refresh', async () => {
    expect('revoke' in client).toBe(false);
    const tokens = await link('SandboxUser7');
    expect(tokens.scopes).toEqual(['offline_access']);
    expect(tokens.expiresAt.getTime()).toBeGreaterThan(Date.now() + 7_000_000);

    expect(await client.listDevices(tokens.accessToken)).toEqual([
      expect.objectContaining({
        type: 'CGM',
        deviceVersion: 'Dexcom G7 (iOS)',
        battery: null,
        lastSyncTime: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
      }),
    ]);

    const end = new Date();
    const start = new Date(end.getTime() - 31 * DAY);
    const requests = countRequests(sims.dexcom, '/v3/users/self/egvs');
    const egvs = await client.getEgvs(tokens.accessToken, { start, end });
    requests.stop();
    expect(requests.count).toBe(2);
    expect(egvs.length).toBeGreaterThan(1000);
    expect(new Set(egvs.map((egv) => egv.recordId)).size).toBe(egvs.length);
    const times = egvs.map((egv) => Date.parse(`${egv.systemTime}Z`));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    expect(Math.min(...times)).toBeGreaterThanOrEqual(Math.floor(start.getTime() / 1000) * 1000);
    // Records on both sides of the window boundary arrived.
    expect(Math.min(...times)).toBeLessThan(end.getTime() - 30 * DAY);

    const rotated = log.add(await client.refresh(tokens.refreshToken));
    expect(rotated.refreshToken).not.toBe(tokens.refreshToken);
    expect(await client.listDevices(rotated.accessToken)).toHaveLength(1);
    const dead = await expectFailure(
      client.refresh(tokens.refreshToken),
      ProviderInvalidGrantError,
      log,
    );
    expect(errorTypeOf(dead)).toBe('auth_error');
  });

  it('splits ranges into contiguous windows of at most 30 days, newest first', () => {
    const end = new Date('2026-03-01T00:00:00.400Z');
    const start = new Date('2025-12-16T12:00:00.600Z');
    const windows = dexcomWindows(start, end);
    expect(windows).toHaveLength(3);
    expect(windows[0]?.end.toISOString()).toBe('2026-03-01T00:00:01.000Z');
    expect(windows.at(-1)?.start.toISOString()).toBe('2025-12-16T12:00:00.000Z');
    for (const [index, window] of windows.entries()) {
      expect(window.end.getTime() - window.start.getTime()).toBeLessThanOrEqual(30 * DAY);
      if (index > 0) expect(windows[index - 1]?.start).toEqual(window.end);
    }
    expect(() => dexcomWindows(end, start)).toThrow(RangeError);
  });

  describe('forced faults', () => {
    let tokens: TokenSet;
    const day = () => ({ start: new Date(Date.now() - DAY), end: new Date() });
    beforeAll(async () => {
      tokens = await link('SandboxUser2');
    });

    it('bounds the retries of a 5xx GET: server_error', async () => {
      await injectFault(baseUrl, { kind: 'server-error', status: 500, times: 'always' });
      const requests = countRequests(sims.dexcom, '/egvs');
      const error = await expectFailure(
        client.getEgvs(tokens.accessToken, day()),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(3);
      expect(errorTypeOf(error)).toBe('server_error');
    });

    it('retries a dropped connection on a GET and succeeds', async () => {
      await injectFault(baseUrl, { kind: 'drop-connection', times: 1 });
      const requests = countRequests(sims.dexcom, '/devices');
      expect(await client.listDevices(tokens.accessToken)).toHaveLength(1);
      requests.stop();
      expect(requests.count).toBe(2);
    });

    it('surfaces a 429 with a long Retry-After at once', async () => {
      await injectFault(baseUrl, { kind: 'rate-limit', times: 'always' });
      const requests = countRequests(sims.dexcom, '/egvs');
      const error = await expectFailure(
        client.getEgvs(tokens.accessToken, day()),
        ProviderRateLimitedError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(error.retryAfterSeconds).toBe(3600);
    });

    it('sends a refresh once even on 5xx, and maps invalid_grant', async () => {
      await injectFault(baseUrl, {
        kind: 'server-error',
        target: 'token',
        status: 503,
        times: 'always',
      });
      const requests = countRequests(sims.dexcom, '/v2/oauth2/token');
      await expectFailure(client.refresh(tokens.refreshToken), ProviderUnavailableError, log);
      requests.stop();
      expect(requests.count).toBe(1);
      await clearFaults(baseUrl);

      await injectFault(baseUrl, { kind: 'invalid-grant' });
      await expectFailure(client.refresh(tokens.refreshToken), ProviderInvalidGrantError, log);
      // The forced fault left the real token alone.
      log.add(await client.refresh(tokens.refreshToken));
    });
  });

  it('checked every error for tokens', () => {
    expect(log.size).toBeGreaterThan(4);
  });
});
