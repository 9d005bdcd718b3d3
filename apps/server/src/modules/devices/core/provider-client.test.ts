import { describe, expect, it } from 'vitest';
import { DEVICE_ERROR_TYPES } from '@trialpulse/shared';
import { assertProviderConfig, type ProviderConfig } from './provider-client';
import { fitbitLegacyEndpoints } from '../../../providers/fitbit-legacy/fitbit-legacy.client';
import {
  ProviderAuthError,
  ProviderGoneError,
  ProviderInvalidGrantError,
  ProviderNotFoundError,
  ProviderPermissionError,
  ProviderRateLimitedError,
  ProviderRequestError,
  ProviderUnavailableError,
  errorTypeOf,
  providerErrorFromResponse,
  retryAfterSecondsOf,
} from './provider-errors';

/** The pieces that need no simulator: error mapping, header parsing, config checks. */

const upstream = 'fitbit-legacy' as const;
const api = { upstream, label: 'Fitbit Web API (legacy)' };
const now = new Date('2026-11-20T10:00:00Z');

describe('provider errors', () => {
  it('maps every client error to one of the spec error types', () => {
    const unavailable = (reason: 'server_error' | 'timeout' | 'network' | 'invalid_response') =>
      new ProviderUnavailableError('x', { upstream }, reason);
    const cases: Array<[unknown, string]> = [
      [new ProviderRateLimitedError('x', { upstream }, 30), 'rate_limit'],
      [new ProviderAuthError('x', { upstream }), 'auth_error'],
      [new ProviderInvalidGrantError('x', { upstream }), 'auth_error'],
      [new ProviderGoneError('x', { upstream }), 'auth_error'],
      [new ProviderPermissionError('x', { upstream }), 'auth_error'],
      [new ProviderNotFoundError('x', { upstream }), 'not_found'],
      [unavailable('server_error'), 'server_error'],
      [unavailable('timeout'), 'connection_error'],
      [unavailable('network'), 'connection_error'],
      [unavailable('invalid_response'), 'processing_error'],
      [new ProviderRequestError('x', { upstream }), 'processing_error'],
      [new TypeError('bug'), 'processing_error'],
    ];
    for (const [error, type] of cases) {
      expect(errorTypeOf(error)).toBe(type);
      expect(DEVICE_ERROR_TYPES).toContain(type);
    }
  });

  it("reads Retry-After as seconds or a date, and a provider's own reset header only on a 429", () => {
    const answer = (status: number, headers: Record<string, string>) =>
      new Response(null, { status, headers });
    const reset = fitbitLegacyEndpoints().rateLimitResetHeader;
    expect(reset).toBe('fitbit-rate-limit-reset');
    expect(retryAfterSecondsOf(answer(429, { 'retry-after': '120' }), now)).toBe(120);
    expect(
      retryAfterSecondsOf(answer(503, { 'retry-after': 'Fri, 20 Nov 2026 10:00:30 GMT' }), now),
    ).toBe(30);
    expect(retryAfterSecondsOf(answer(429, { 'fitbit-rate-limit-reset': '42' }), now, reset)).toBe(
      42,
    );
    expect(retryAfterSecondsOf(answer(500, { 'fitbit-rate-limit-reset': '42' }), now, reset)).toBe(
      undefined,
    );
    // The kit knows no provider's header: one that declares none waits its default.
    expect(retryAfterSecondsOf(answer(429, { 'fitbit-rate-limit-reset': '42' }), now)).toBe(
      undefined,
    );
  });

  it('keeps a token echoed in the provider body out of the error', () => {
    const token = 'eyJhbGciOiJIUzI1NiJ9.secret-token-value';
    const body = JSON.stringify({
      errors: [{ errorType: 'expired_token', message: `Access token expired: ${token}` }],
    });
    const error = providerErrorFromResponse(
      api,
      'api',
      new Response(body, { status: 401 }),
      body,
      now,
    );
    expect(error).toBeInstanceOf(ProviderAuthError);
    expect(error.code).toBe('expired_token');
    expect(`${error.message} ${JSON.stringify(error)}`).not.toContain(token);
    // A "code" that is not an identifier is dropped rather than quoted.
    const odd = JSON.stringify({ error: `bad ${token}` });
    const dropped = providerErrorFromResponse(
      api,
      'token',
      new Response(odd, { status: 400 }),
      odd,
      now,
    );
    expect(dropped.code).toBeUndefined();
    expect(dropped.message).not.toContain(token);
  });
});

describe('provider configuration', () => {
  const base: ProviderConfig = {
    brand: 'dexcom',
    upstream: 'dexcom',
    label: 'Dexcom API',
    authorizeUrl: 'https://api.dexcom.com/v2/oauth2/login',
    tokenUrl: 'https://api.dexcom.com/v2/oauth2/token',
    apiBaseUrl: 'https://api.dexcom.com/v3/users/self',
    clientId: 'id',
    clientSecret: 'secret',
    clientAuth: 'body',
    redirectUri: 'https://trialpulse.example.org/dexcom-callback',
    scopes: ['offline_access'],
  };

  it('allows plain http only to loopback simulators', () => {
    expect(() => assertProviderConfig(base)).not.toThrow();
    expect(() =>
      assertProviderConfig({ ...base, tokenUrl: 'http://127.0.0.1:4013/v2/oauth2/token' }),
    ).not.toThrow();
    expect(() =>
      assertProviderConfig({ ...base, tokenUrl: 'http://api.dexcom.com/v2/oauth2/token' }),
    ).toThrow(/https/);
  });

  it('needs a secret unless the client is public', () => {
    const { clientSecret: _none, ...noSecret } = base;
    expect(() => assertProviderConfig(noSecret)).toThrow(/secret/);
    expect(() => assertProviderConfig({ ...noSecret, clientAuth: 'none' })).not.toThrow();
  });
});
