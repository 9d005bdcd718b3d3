import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AllSimulators, startAllSimulators } from '@trialpulse/provider-simulators';
import { OMRON_ACCOUNTS } from '@trialpulse/provider-simulators/omron';
import { submitConsent } from '@trialpulse/provider-simulators/common/consent-driver';
import {
  type TokenSet,
  generateAuthorizationSecrets,
} from '../../modules/devices/core/provider-client';
import {
  ProviderAuthError,
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
import { type OmronClient, createOmronClient } from './omron.client';

let sims: AllSimulators;
let client: OmronClient;
let baseUrl: string;
const log = new TokenLog();
const JAMES = OMRON_ACCOUNTS[1]?.id ?? '';
const MARIA = OMRON_ACCOUNTS[0]?.id ?? '';

beforeAll(async () => {
  sims = await startAllSimulators({ fitbitLegacyShutdownAt: null });
  client = createOmronClient(simulatorConfigs(sims).omron);
  baseUrl = sims.omron.baseUrl;
});
afterAll(() => sims?.close());
afterEach(() => clearFaults(baseUrl));

async function link(account: string): Promise<TokenSet> {
  const { state, codeVerifier } = generateAuthorizationSecrets();
  const url = await client.authorizationUrl({ state, codeVerifier });
  expect(url.searchParams.get('code_challenge_method')).toBe('S256');
  const { redirect } = await submitConsent(url.href, { account, decision: 'allow' });
  expect(redirect.searchParams.get('state')).toBe(state);
  return log.add(await client.exchangeCode(redirect.searchParams.get('code') ?? '', codeVerifier));
}

function daysAgo(days: number): string {
  return new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);
}

describe('Omron client', () => {
  it('authorizes, lists devices, reads measurements, rotates on refresh, revokes', async () => {
    const tokens = await link(JAMES);
    expect(tokens.providerUserId).toBe(JAMES);
    expect(tokens.scopes).toEqual(expect.arrayContaining(['bloodpressure', 'offline_access']));

    const devices = await client.listDevices(tokens.accessToken);
    expect(devices.map((d) => d.type).sort()).toEqual(['BLOOD_PRESSURE_MONITOR', 'SCALE']);
    for (const device of devices) expect(device.lastSyncTime).toMatch(/Z$/);

    const page = await client.getMeasurements(tokens.accessToken, {
      type: 'bloodpressure',
      since: daysAgo(30),
      limit: 5,
      sortOrder: 'desc',
    });
    expect(page.bloodPressure).toHaveLength(5);
    expect(page.truncated).toBe(true);
    const times = page.bloodPressure.map((r) => r.dateTime);
    expect([...times].sort().reverse()).toEqual(times);
    const next = await client.getMeasurements(tokens.accessToken, {
      type: 'bloodpressure',
      since: daysAgo(30),
      limit: 5,
      sortOrder: 'desc',
      paginationKey: page.nextPaginationKey ?? '',
    });
    expect((next.bloodPressure[0]?.dateTime ?? '') < (times[4] ?? '')).toBe(true);

    const rotated = log.add(await client.refresh(tokens.refreshToken));
    expect(rotated.refreshToken).not.toBe(tokens.refreshToken);
    expect(rotated.providerUserId).toBe(JAMES);
    await expectFailure(client.refresh(tokens.refreshToken), ProviderInvalidGrantError, log);

    await client.revoke(rotated.refreshToken);
    const refused = await expectFailure(
      client.getMeasurements(rotated.accessToken, { type: 'weight', since: daysAgo(7) }),
      ProviderAuthError,
      log,
    );
    expect(errorTypeOf(refused)).toBe('auth_error');
  });

  it('fails the exchange when the PKCE verifier does not match', async () => {
    const { state, codeVerifier } = generateAuthorizationSecrets();
    const url = await client.authorizationUrl({ state, codeVerifier });
    const { redirect } = await submitConsent(url.href, { account: MARIA, decision: 'allow' });
    await expectFailure(
      client.exchangeCode(
        redirect.searchParams.get('code') ?? '',
        generateAuthorizationSecrets().codeVerifier,
      ),
      ProviderInvalidGrantError,
      log,
    );
  });

  describe('forced faults', () => {
    let tokens: TokenSet;
    beforeAll(async () => {
      tokens = await link(MARIA);
    });
    const query = { type: 'bloodpressure', since: daysAgo(3) } as const;

    it('sends the measurement POST once on a 5xx: server_error', async () => {
      await injectFault(baseUrl, { kind: 'server-error', times: 'always' });
      const requests = countRequests(sims.omron, '/api/measurement');
      const error = await expectFailure(
        client.getMeasurements(tokens.accessToken, query),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(errorTypeOf(error)).toBe('server_error');
    });

    it('surfaces a long Retry-After as rate_limit instead of sleeping', async () => {
      await injectFault(baseUrl, { kind: 'rate-limit' });
      const error = await expectFailure(
        client.listDevices(tokens.accessToken),
        ProviderRateLimitedError,
        log,
      );
      expect(error.retryAfterSeconds).toBe(3600);
      expect(errorTypeOf(error)).toBe('rate_limit');
    });

    it('maps an expired token (401 without a body) to auth_error', async () => {
      await injectFault(baseUrl, { kind: 'expired-token' });
      const error = await expectFailure(
        client.getMeasurements(tokens.accessToken, query),
        ProviderAuthError,
        log,
      );
      expect(error.code).toBe('invalid_token');
    });

    it('maps truncated JSON to processing_error and a dropped connection to connection_error', async () => {
      await injectFault(baseUrl, { kind: 'truncated-json' });
      const truncated = await expectFailure(
        client.getMeasurements(tokens.accessToken, query),
        ProviderUnavailableError,
        log,
      );
      expect(errorTypeOf(truncated)).toBe('processing_error');

      await injectFault(baseUrl, { kind: 'drop-connection' });
      const dropped = await expectFailure(
        client.getMeasurements(tokens.accessToken, query),
        ProviderUnavailableError,
        log,
      );
      expect(errorTypeOf(dropped)).toBe('connection_error');
    });

    it('maps invalid_grant on refresh, and truncated token answers, without retrying', async () => {
      await injectFault(baseUrl, { kind: 'invalid-grant' });
      await expectFailure(client.refresh(tokens.refreshToken), ProviderInvalidGrantError, log);

      await injectFault(baseUrl, { kind: 'truncated-json', target: 'token' });
      const requests = countRequests(sims.omron, '/connect/token');
      const error = await expectFailure(
        client.refresh(tokens.refreshToken),
        ProviderUnavailableError,
        log,
      );
      requests.stop();
      expect(requests.count).toBe(1);
      expect(errorTypeOf(error)).toBe('processing_error');
    });
  });

  it('checked every error for tokens', () => {
    expect(log.size).toBeGreaterThan(4);
  });
});
