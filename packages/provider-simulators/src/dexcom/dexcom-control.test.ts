import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_DEXCOM_CLIENT, startDexcomSimulator, type RunningDexcomSimulator } from './index';
import { dexcomErrorSchema, dexcomEgvSchema, dexcomListSchema } from './dexcom-schemas';

const NOW = '2026-06-15T12:00:00Z';
const egvList = dexcomListSchema('egv', dexcomEgvSchema);

let sim: RunningDexcomSimulator;
let tokens: { access_token: string; refresh_token: string };

beforeAll(async () => {
  sim = await startDexcomSimulator({
    startTime: NOW,
    clients: [DEFAULT_DEXCOM_CLIENT, { clientId: 'other-app', clientSecret: 'other-secret' }],
  });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.control.reset();
  tokens = sim.control.issueTokens({ accountId: 'SandboxUser1' }) as typeof tokens;
});

function egvs(accessToken = tokens.access_token) {
  return fetch(
    `${sim.endpoints.api}/egvs?startDate=2026-06-14T00:00:00&endDate=2026-06-15T00:00:00`,
    {
      headers: { authorization: `Bearer ${accessToken}` },
    },
  );
}

function refresh(refreshToken = tokens.refresh_token) {
  return fetch(sim.endpoints.token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: DEFAULT_DEXCOM_CLIENT.clientId,
      client_secret: DEFAULT_DEXCOM_CLIENT.clientSecret!,
      redirect_uri: 'http://localhost:3000/dexcom-callback',
    }),
  });
}

function control(path: string, body?: unknown, method = 'POST') {
  return fetch(`${sim.baseUrl}/__control${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

describe('Dexcom rate limit: 60,000 calls per app per hour', () => {
  it('answers the 60,001st call of the hour with 429, per app, and resets with the clock', async () => {
    expect((await control('/rate-limits/usage', { used: 59_999 })).status).toBe(204);
    expect((await egvs()).status).toBe(200);
    const limited = await egvs();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('3600');
    expect(dexcomErrorSchema.parse(await limited.json())).toEqual({
      error: 'rate_limit_exceeded',
      error_description: 'Rate limit of 60000 calls per hour exceeded',
    });

    // Counted per app: another client's calls still go through.
    const other = sim.control.issueTokens({
      accountId: 'SandboxUser1',
      clientId: 'other-app',
    }) as typeof tokens;
    expect((await egvs(other.access_token)).status).toBe(200);

    // The window is the clock hour on the simulator clock.
    await control('/clock/advance', { minutes: 30 });
    expect((await egvs()).status).toBe(429);
    await control('/clock/advance', { minutes: 30 });
    expect((await egvs()).status).toBe(200);

    sim.control.setRateLimitUsage(60_000);
    expect((await egvs()).status).toBe(429);
    expect((await control('/rate-limits/reset')).status).toBe(204);
    expect((await egvs()).status).toBe(200);
  });
});

describe('Dexcom forced faults', () => {
  it('expired-token and revoked-token: 401 with a Bearer challenge, exactly `times` times', async () => {
    sim.control.injectFault({ kind: 'expired-token', times: 2 });
    sim.control.injectFault({ kind: 'revoked-token' });
    for (const description of [
      'The access token expired',
      'The access token expired',
      'The access token is invalid or was revoked',
    ]) {
      const response = await egvs();
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toContain('error="invalid_token"');
      expect(await response.json()).toEqual({
        error: 'invalid_token',
        error_description: description,
      });
    }
    expect((await egvs()).status).toBe(200);
  });

  it('rate-limit and server-error (502) in the error shape', async () => {
    await control('/faults', { kind: 'rate-limit' });
    await control('/faults', { kind: 'server-error', status: 502 });
    expect((await egvs()).status).toBe(429);
    const bad = await egvs();
    expect(bad.status).toBe(502);
    expect(dexcomErrorSchema.parse(await bad.json()).error).toBe('server_error');
    expect((await egvs()).status).toBe(200);
  });

  it('slow, drop-connection and truncated-json', async () => {
    const full = await (await egvs()).text();
    sim.control.injectFault({ kind: 'slow', delayMs: 100 });
    egvList.parse(await (await egvs()).json());

    sim.control.injectFault({ kind: 'drop-connection' });
    await expect(egvs()).rejects.toThrow();

    sim.control.injectFault({ kind: 'truncated-json' });
    const truncated = await egvs();
    expect(truncated.status).toBe(200);
    const text = await truncated.text();
    expect(text.length).toBe(Math.floor(full.length / 2));
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    expect(await (await egvs()).text()).toBe(full);
  });

  it('invalid-grant on the token endpoint, once', async () => {
    sim.control.injectFault({ kind: 'invalid-grant' });
    const failed = await refresh();
    expect(failed.status).toBe(400);
    expect(dexcomErrorSchema.parse(await failed.json()).error).toBe('invalid_grant');
    // The forced failure did not consume the refresh token.
    expect((await refresh()).status).toBe(200);
  });

  it('faults on other targets: the token endpoint can fail with 503 too', async () => {
    sim.control.injectFault({ kind: 'server-error', target: 'token', status: 503 });
    expect((await egvs()).status).toBe(200);
    expect((await refresh()).status).toBe(503);
    expect((await refresh()).status).toBe(200);
  });

  it('rejects faults Dexcom cannot produce', async () => {
    expect((await control('/faults', { kind: 'account-not-linked' })).status).toBe(400);
    expect((await control('/faults', { kind: 'expired-token', target: 'token' })).status).toBe(400);
  });
});

describe('Dexcom tokens and clock', () => {
  it('access tokens last 7200 s of simulator time; refresh then works', async () => {
    sim.control.advanceClock(7199_000);
    expect((await egvs()).status).toBe(200);
    sim.control.advanceClock(1000);
    const expired = await egvs();
    expect(expired.status).toBe(401);
    expect((await expired.json()) as unknown).toEqual({
      error: 'invalid_token',
      error_description: 'The access token expired',
    });
    const renewed = (await (await refresh()).json()) as typeof tokens;
    expect((await egvs(renewed.access_token)).status).toBe(200);
  });

  it('expire and revoke through the control API', async () => {
    expect(await (await control('/tokens/expire', { token: tokens.access_token })).json()).toEqual({
      count: 1,
    });
    expect((await egvs()).status).toBe(401);
    const renewed = (await (await refresh()).json()) as typeof tokens;
    expect((await egvs(renewed.access_token)).status).toBe(200);

    expect(await (await control('/tokens/revoke', { accountId: 'SandboxUser1' })).json()).toEqual({
      count: 1,
    });
    expect((await egvs(renewed.access_token)).status).toBe(401);
    expect(dexcomErrorSchema.parse(await (await refresh(renewed.refresh_token)).json()).error).toBe(
      'invalid_grant',
    );
  });

  it('answers unknown paths with 404 and refuses bad control requests with 400', async () => {
    expect(
      (
        await fetch(`${sim.endpoints.api}/statistics`, {
          headers: { authorization: `Bearer ${tokens.access_token}` },
        })
      ).status,
    ).toBe(404);
    expect((await control('/clock/advance', { weeks: 1 })).status).toBe(400);
    expect((await control('/tokens/issue', { accountId: 'SandboxUser99' })).status).toBe(400);
  });
});
