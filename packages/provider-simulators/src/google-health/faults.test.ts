import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../common/types';
import { errorResponse } from './google-health.schemas';
import { startGoogleHealthSimulator } from './index';
import { apiGet, authorizationServer, client, clientAuth, insecure, signIn } from './test-support';

let sim: RunningSimulator;
let tokens: Awaited<ReturnType<typeof signIn>>;
const IDENTITY = '/v4/users/me/identity';

beforeAll(async () => {
  sim = await startGoogleHealthSimulator({ startTime: '2026-11-20T15:30:10Z' });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  sim.control.reset();
  tokens = await signIn(sim, { account: 'ben-okafor' });
});

const control = async (path: string, body?: unknown, method = 'POST') => {
  const response = await fetch(`${sim.baseUrl}/__control${path}`, {
    method,
    ...(body !== undefined && {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
};

const refresh = async () => {
  const as = authorizationServer(sim);
  return oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
};

describe('rate limit: 300 requests per user per minute', () => {
  it('answers the 301st request of a minute with 429 RESOURCE_EXHAUSTED until the clock moves on', async () => {
    const results = await Promise.all(
      Array.from({ length: 300 }, () =>
        fetch(`${sim.baseUrl}${IDENTITY}`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    await Promise.all(results.map((r) => r.arrayBuffer()));
    const limited = await apiGet(sim, tokens.access_token, IDENTITY);
    expect(limited.status).toBe(429);
    const error = errorResponse.parse(limited.body).error;
    expect(error.status).toBe('RESOURCE_EXHAUSTED');
    expect(error.details?.map((d) => d['@type'])).toEqual([
      'type.googleapis.com/google.rpc.ErrorInfo',
      'type.googleapis.com/google.rpc.QuotaFailure',
    ]);
    // Another user has their own quota.
    const other = (await signIn(sim, { account: 'ava-thompson' })).access_token;
    expect((await apiGet(sim, other, IDENTITY)).status).toBe(200);
    await control('/clock/advance', { seconds: 50 });
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(200);
  });
});

describe('forced faults', () => {
  it('expired-token: 401 now, and the token stays expired until refreshed', async () => {
    const created = await control('/faults', { kind: 'expired-token' });
    expect(created.status).toBe(201);
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(401);
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(401);
    const renewed = await oauth.processRefreshTokenResponse(
      authorizationServer(sim),
      client,
      await refresh(),
    );
    expect((await apiGet(sim, renewed.access_token, IDENTITY)).status).toBe(200);
  });

  it('revoked-token: 401, then the refresh token is invalid_grant', async () => {
    sim.control.injectFault({ kind: 'revoked-token' });
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(401);
    const response = await refresh();
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_grant' });
  });

  it('invalid-grant: exactly the next `times` token requests fail', async () => {
    sim.control.injectFault({ kind: 'invalid-grant', times: 2 });
    for (let i = 0; i < 2; i++) {
      const response = await refresh();
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual({
        error: 'invalid_grant',
        error_description: 'Bad Request',
      });
    }
    expect((await refresh()).status).toBe(200);
    expect(sim.control.faults()).toEqual([]);
  });

  it('rate-limit and server-error answer in Google’s shape, once each', async () => {
    sim.control.injectFault({ kind: 'rate-limit' });
    sim.control.injectFault({ kind: 'server-error', status: 503 });
    const limited = await apiGet(sim, tokens.access_token, IDENTITY);
    expect(limited.status).toBe(429);
    expect(errorResponse.parse(limited.body).error.status).toBe('RESOURCE_EXHAUSTED');
    const unavailable = await apiGet(sim, tokens.access_token, IDENTITY);
    expect(unavailable.status).toBe(503);
    expect(unavailable.body).toEqual({
      error: { code: 503, message: 'The service is currently unavailable.', status: 'UNAVAILABLE' },
    });
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(200);
  });

  it('server-error on the token endpoint', async () => {
    await control('/faults', { kind: 'server-error', target: 'token' });
    const response = await refresh();
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({
      error: 'internal_failure',
      error_description: 'Backend Error',
    });
  });

  it('account-not-linked: 400 FAILED_PRECONDITION for a linked account', async () => {
    sim.control.injectFault({ kind: 'account-not-linked' });
    const response = await apiGet(sim, tokens.access_token, IDENTITY);
    expect(response.status).toBe(400);
    expect(errorResponse.parse(response.body).error.details?.[0]).toMatchObject({
      reason: 'ACCOUNT_NOT_LINKED',
    });
  });

  it('drop-connection: the socket closes without an answer', async () => {
    sim.control.injectFault({ kind: 'drop-connection' });
    await expect(
      fetch(`${sim.baseUrl}${IDENTITY}`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      }),
    ).rejects.toThrow();
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(200);
  });

  it('truncated-json: status 200 with the first half of the real body', async () => {
    const full = await (
      await fetch(`${sim.baseUrl}${IDENTITY}`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      })
    ).text();
    sim.control.injectFault({ kind: 'truncated-json' });
    const response = await fetch(`${sim.baseUrl}${IDENTITY}`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(full.slice(0, Math.floor(full.length / 2)));
    expect(() => JSON.parse(text)).toThrow();
  });

  it('slow: the answer still comes, and the fault is used up', async () => {
    sim.control.injectFault({ kind: 'slow', delayMs: 50 });
    expect(sim.control.faults()).toHaveLength(1);
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(200);
    expect(sim.control.faults()).toEqual([]);
  });

  it('matches faults by path and account, and keeps `always` faults until cleared', async () => {
    sim.control.injectFault({
      kind: 'server-error',
      pathIncludes: '/dataTypes/sleep/',
      times: 'always',
    });
    sim.control.injectFault({ kind: 'rate-limit', accountId: 'ava-thompson' });
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(200);
    for (let i = 0; i < 3; i++) {
      expect(
        (await apiGet(sim, tokens.access_token, '/v4/users/me/dataTypes/sleep/dataPoints')).status,
      ).toBe(500);
    }
    const ava = (await signIn(sim, { account: 'ava-thompson' })).access_token;
    expect((await apiGet(sim, ava, IDENTITY)).status).toBe(429);
    expect((await control('/faults', undefined, 'DELETE')).status).toBe(204);
    expect(
      (await apiGet(sim, tokens.access_token, '/v4/users/me/dataTypes/sleep/dataPoints?pageSize=1'))
        .status,
    ).toBe(200);
  });

  it('rejects faults the simulator cannot produce', async () => {
    expect((await control('/faults', { kind: 'expired-token', target: 'token' })).status).toBe(400);
    expect((await control('/faults', { kind: 'melt-down' })).status).toBe(400);
  });
});

describe('control API', () => {
  it('moves the clock and expires or revokes tokens on request', async () => {
    const state = await control('', undefined, 'GET');
    expect(state.body).toMatchObject({ name: 'google-health', now: '2026-11-20T15:30:10.000Z' });
    expect((await control('/clock/set', { time: '2026-11-20T16:00:00Z' })).body).toEqual({
      now: '2026-11-20T16:00:00.000Z',
    });
    expect((await control('/tokens/expire', { accountId: 'ben-okafor' })).body).toEqual({
      count: 1,
    });
    expect((await apiGet(sim, tokens.access_token, IDENTITY)).status).toBe(401);
    const renewed = await oauth.processRefreshTokenResponse(
      authorizationServer(sim),
      client,
      await refresh(),
    );
    expect((await control('/tokens/revoke', { token: renewed.access_token })).body).toEqual({
      count: 1,
    });
    expect((await refresh()).status).toBe(400);
  });
});
