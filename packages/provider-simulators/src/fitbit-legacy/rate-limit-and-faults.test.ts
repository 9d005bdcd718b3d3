import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningSimulator } from '../common/types';
import { errorBody } from './fitbit-legacy.schemas';
import { type FitbitSimulatorControl, startFitbitLegacySimulator } from './index';
import { apiGet, refreshRequest, signIn } from './test-support';

let sim: RunningSimulator<FitbitSimulatorControl>;
let tokens: Awaited<ReturnType<typeof signIn>>;
const PROFILE = '/1/user/-/profile.json';

beforeAll(async () => {
  // 10:40:00 UTC: the hour window resets in 20 minutes.
  sim = await startFitbitLegacySimulator({ startTime: '2026-10-20T10:40:00Z' });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(async () => {
  sim.control.reset();
  tokens = await signIn(sim, 'ben-okafor');
});

const rateHeaders = (headers: Headers) => ({
  limit: headers.get('fitbit-rate-limit-limit'),
  remaining: headers.get('fitbit-rate-limit-remaining'),
  reset: headers.get('fitbit-rate-limit-reset'),
});

describe('150 requests per user per hour', () => {
  it('answers the 151st call with 429 and the headers, and resets with the simulated clock', async () => {
    const first = await apiGet(sim, tokens.access_token, PROFILE);
    expect(rateHeaders(first.headers)).toEqual({ limit: '150', remaining: '149', reset: '1200' });
    for (let call = 2; call <= 150; call++) {
      const response = await fetch(`${sim.baseUrl}${PROFILE}`, {
        headers: { authorization: `Bearer ${tokens.access_token}` },
      });
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      expect(response.headers.get('fitbit-rate-limit-remaining')).toBe(String(150 - call));
    }
    sim.control.advanceClock(5 * 60_000);
    const limited = await apiGet(sim, tokens.access_token, PROFILE);
    expect(limited.status).toBe(429);
    expect(limited.body).toEqual({
      errors: [{ errorType: 'system', fieldName: 'n/a', message: 'Too Many Requests' }],
    });
    expect(rateHeaders(limited.headers)).toEqual({ limit: '150', remaining: '0', reset: '900' });
    expect(limited.headers.get('retry-after')).toBe('900');

    // The quota is per user: another participant is not affected.
    const other = await signIn(sim, 'ava-thompson');
    expect((await apiGet(sim, other.access_token, PROFILE)).status).toBe(200);

    // The window ends at the top of the simulated hour.
    sim.control.advanceClock(899_000);
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(429);
    sim.control.advanceClock(1_000);
    const fresh = await apiGet(sim, tokens.access_token, PROFILE);
    expect(fresh.status).toBe(200);
    expect(rateHeaders(fresh.headers)).toEqual({ limit: '150', remaining: '149', reset: '3600' });
  });
});

describe('forced faults in Fitbit’s shape', () => {
  it('expired-token: 401 expired_token, and a refresh gets going again', async () => {
    sim.control.injectFault({ kind: 'expired-token' });
    const response = await apiGet(sim, tokens.access_token, PROFILE);
    expect(response.status).toBe(401);
    expect(errorBody.parse(response.body).errors[0]).toMatchObject({ errorType: 'expired_token' });
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(401);
    const renewed = (await (await refreshRequest(sim, tokens.refresh_token)).json()) as {
      access_token: string;
    };
    expect((await apiGet(sim, renewed.access_token, PROFILE)).status).toBe(200);
  });

  it('revoked-token: 401 invalid_token, and the refresh token is gone too', async () => {
    sim.control.injectFault({ kind: 'revoked-token' });
    const response = await apiGet(sim, tokens.access_token, PROFILE);
    expect(errorBody.parse(response.body).errors[0]).toMatchObject({ errorType: 'invalid_token' });
    expect((await refreshRequest(sim, tokens.refresh_token)).status).toBe(400);
  });

  it('invalid-grant on the token endpoint, exactly once', async () => {
    sim.control.injectFault({ kind: 'invalid-grant' });
    const failed = await refreshRequest(sim, tokens.refresh_token);
    expect(failed.status).toBe(400);
    expect(errorBody.parse(await failed.json()).errors[0]?.errorType).toBe('invalid_grant');
    expect((await refreshRequest(sim, tokens.refresh_token)).status).toBe(200);
  });

  it('rate-limit: a 429 before the quota is used up', async () => {
    sim.control.injectFault({ kind: 'rate-limit' });
    const response = await apiGet(sim, tokens.access_token, PROFILE);
    expect(response.status).toBe(429);
    expect(response.headers.get('fitbit-rate-limit-remaining')).toBe('149');
    expect(response.headers.get('retry-after')).toBe(
      response.headers.get('fitbit-rate-limit-reset'),
    );
  });

  it('server-error with the configured status, `times` times', async () => {
    sim.control.injectFault({ kind: 'server-error', status: 502, times: 2 });
    for (let i = 0; i < 2; i++) {
      const response = await apiGet(sim, tokens.access_token, PROFILE);
      expect(response.status).toBe(502);
      expect(errorBody.parse(response.body).errors[0]?.errorType).toBe('system');
    }
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);
  });

  it('drop-connection, truncated-json and slow over the HTTP control API', async () => {
    const inject = (body: unknown) =>
      fetch(`${sim.baseUrl}/__control/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    expect((await inject({ kind: 'drop-connection', pathIncludes: 'devices' })).status).toBe(201);
    const headers = { authorization: `Bearer ${tokens.access_token}` };
    expect((await fetch(`${sim.baseUrl}${PROFILE}`, { headers })).status).toBe(200);
    await expect(fetch(`${sim.baseUrl}/1/user/-/devices.json`, { headers })).rejects.toThrow();

    const full = await (await fetch(`${sim.baseUrl}${PROFILE}`, { headers })).text();
    await inject({ kind: 'truncated-json' });
    const cut = await fetch(`${sim.baseUrl}${PROFILE}`, { headers });
    expect(cut.status).toBe(200);
    const text = await cut.text();
    expect(text).toBe(full.slice(0, Math.floor(full.length / 2)));
    expect(() => JSON.parse(text)).toThrow();

    await inject({ kind: 'slow', delayMs: 20 });
    expect((await fetch(`${sim.baseUrl}${PROFILE}`, { headers })).status).toBe(200);
    expect(sim.control.faults()).toEqual([]);
  });

  it('Fitbit has no ACCOUNT_NOT_LINKED fault', async () => {
    expect(() => sim.control.injectFault({ kind: 'account-not-linked' })).toThrow();
  });
});
