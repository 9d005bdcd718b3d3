import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_OMRON_CLIENT,
  OMRON_ACCOUNTS,
  startOmronSimulator,
  type RunningOmronSimulator,
} from './index';
import { omronApiErrorSchema, omronMeasurementResponseSchema } from './omron-schemas';

const NOW = '2026-06-15T12:00:00Z';
const MARIA = OMRON_ACCOUNTS[0]!.id;
const JAMES = OMRON_ACCOUNTS[1]!.id;

let sim: RunningOmronSimulator;
let tokens: { access_token: string; refresh_token: string };

beforeAll(async () => {
  sim = await startOmronSimulator({ startTime: NOW, rateLimitPerHour: 50 });
});
afterAll(() => sim.close());
beforeEach(() => {
  sim.control.reset();
  tokens = sim.control.issueTokens({ accountId: MARIA }) as typeof tokens;
});

function measure(accessToken = tokens.access_token) {
  return fetch(sim.endpoints.measurement, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Bearer ${accessToken}`,
    },
    body: new URLSearchParams({ since: '2026-06-01', type: 'bloodpressure' }),
  });
}

function refresh(refreshToken = tokens.refresh_token) {
  return fetch(sim.endpoints.token, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      client_id: DEFAULT_OMRON_CLIENT.clientId,
      client_secret: DEFAULT_OMRON_CLIENT.clientSecret!,
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

describe('Omron forced faults (control API)', () => {
  it('expired-token: exactly `times` data calls get 401 with an expired-token challenge', async () => {
    expect((await control('/faults', { kind: 'expired-token', times: 2 })).status).toBe(201);
    for (let i = 0; i < 2; i++) {
      const response = await measure();
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe(
        'Bearer error="invalid_token", error_description="The token expired"',
      );
    }
    expect((await measure()).status).toBe(200);
  });

  it('revoked-token: 401 invalid_token once', async () => {
    sim.control.injectFault({ kind: 'revoked-token' });
    const response = await measure();
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toMatch(/revoked/);
    expect((await measure()).status).toBe(200);
  });

  it('rate-limit and server-error answer in the API error shape', async () => {
    sim.control.injectFault({ kind: 'rate-limit' });
    sim.control.injectFault({ kind: 'server-error', status: 503 });
    const limited = await measure();
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(omronApiErrorSchema.parse(await limited.json())).toEqual({
      status: 429,
      message: 'Too Many Requests',
    });
    const unavailable = await measure();
    expect(unavailable.status).toBe(503);
    expect(omronApiErrorSchema.parse(await unavailable.json()).status).toBe(503);
    expect((await measure()).status).toBe(200);
  });

  it('slow: the response still arrives, complete', async () => {
    sim.control.injectFault({ kind: 'slow', delayMs: 150 });
    const response = await measure();
    expect(response.status).toBe(200);
    omronMeasurementResponseSchema.parse(await response.json());
    expect(sim.control.faults()).toEqual([]);
  });

  it('drop-connection: the socket closes without a response', async () => {
    sim.control.injectFault({ kind: 'drop-connection' });
    await expect(measure()).rejects.toThrow();
    expect((await measure()).status).toBe(200);
  });

  it('truncated-json: a 200 whose body is cut in half', async () => {
    const full = await (await measure()).text();
    sim.control.injectFault({ kind: 'truncated-json' });
    const response = await measure();
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toBe(full.slice(0, Math.floor(full.length / 2)));
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
  });

  it('invalid-grant: the next refresh fails with invalid_grant, the one after succeeds', async () => {
    sim.control.injectFault({ kind: 'invalid-grant' });
    const failed = await refresh();
    expect(failed.status).toBe(400);
    expect(await failed.json()).toEqual({ error: 'invalid_grant' });
    expect((await refresh()).status).toBe(200);
  });

  it('faults can target one account and be listed and cleared', async () => {
    sim.control.injectFault({ kind: 'server-error', accountId: JAMES, times: 'always' });
    expect((await measure()).status).toBe(200);
    const james = sim.control.issueTokens({ accountId: JAMES }) as typeof tokens;
    expect((await measure(james.access_token)).status).toBe(500);
    expect((await measure(james.access_token)).status).toBe(500);
    expect(
      ((await (await control('/faults', undefined, 'GET')).json()) as { faults: unknown[] }).faults,
    ).toHaveLength(1);
    expect((await control('/faults', undefined, 'DELETE')).status).toBe(204);
    expect((await measure(james.access_token)).status).toBe(200);
  });

  it('refuses faults Omron cannot produce', async () => {
    const response = await control('/faults', { kind: 'account-not-linked' });
    expect(response.status).toBe(400);
  });
});

describe('Omron token controls and clock', () => {
  it('expires access tokens on demand; refresh still works', async () => {
    expect(await (await control('/tokens/expire', { accountId: MARIA })).json()).toEqual({
      count: 1,
    });
    expect((await measure()).status).toBe(401);
    const renewed = (await (await refresh()).json()) as typeof tokens;
    expect((await measure(renewed.access_token)).status).toBe(200);
  });

  it('revokes tokens on demand; refresh then fails with invalid_grant', async () => {
    expect(sim.control.revokeTokens({ accountId: MARIA })).toBe(1);
    expect((await measure()).status).toBe(401);
    expect(await (await refresh()).json()).toEqual({ error: 'invalid_grant' });
  });

  it('lets access tokens expire after 3600 s of simulator time', async () => {
    await control('/clock/advance', { seconds: 3599 });
    expect((await measure()).status).toBe(200);
    const advanced = (await (await control('/clock/advance', { seconds: 1 })).json()) as {
      now: string;
    };
    expect(advanced.now).toBe('2026-06-15T13:00:00.000Z');
    const expired = await measure();
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toMatch(/expired/);
  });

  it('counts calls per client per clock hour and answers 429 over the limit', async () => {
    sim.control.setRateLimitUsage(49);
    expect((await measure()).status).toBe(200);
    const limited = await measure();
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBe(3600);
    expect(await limited.json()).toEqual({ status: 429, message: 'Too Many Requests' });
    // The window follows the simulator clock: at the top of the next hour it resets.
    sim.control.advanceClock(3600_000);
    const fresh = sim.control.issueTokens({ accountId: MARIA }) as typeof tokens;
    expect((await measure(fresh.access_token)).status).toBe(200);
  });

  it('reports state and accounts', async () => {
    const state = (await (await control('', undefined, 'GET')).json()) as Record<string, unknown>;
    expect(state.name).toBe('omron');
    expect(state.now).toBe(new Date(NOW).toISOString());
    expect(state.accounts).toHaveLength(OMRON_ACCOUNTS.length);
    expect(state.linkedAccounts).toEqual([MARIA]);
  });
});

describe('Omron upload notifications', () => {
  let receiver: Server;
  let received: Array<{ body: Record<string, string>; contentType: string | undefined }>;
  let uri: string;

  beforeAll(async () => {
    received = [];
    receiver = createServer((request, response) => {
      let data = '';
      request.on('data', (chunk: Buffer) => (data += chunk.toString()));
      request.on('end', () => {
        received.push({
          body: JSON.parse(data) as Record<string, string>,
          contentType: request.headers['content-type'],
        });
        response.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    uri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/omron/notify`;
  });
  afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  afterEach(() => {
    received.length = 0;
  });

  it('POSTs {id, timestamp} for linked accounts when new uploads appear', async () => {
    expect((await control('/notifications', { uri }, 'PUT')).status).toBe(200);
    const before = sim.control.now().getTime();
    sim.control.advanceClock(24 * 3600_000);
    const deliveries = await sim.control.notificationsSettled();
    expect(deliveries.every((d) => d.status === 200)).toBe(true);
    expect(received.length).toBeGreaterThan(0);
    for (const { body, contentType } of received) {
      expect(contentType).toBe('application/json');
      // Only Maria has a grant in this test.
      expect(body.id).toBe(MARIA);
      expect(body.timestamp).toMatch(/^\d{13}$/);
      expect(Number(body.timestamp)).toBeGreaterThan(before);
      expect(Number(body.timestamp)).toBeLessThanOrEqual(sim.control.now().getTime());
    }
    expect(new Set(received.map((r) => r.body.type))).toContain('bloodpressure');

    // The partner then pulls: the day's new readings are there.
    const fresh = sim.control.issueTokens({ accountId: MARIA }) as typeof tokens;
    const data = omronMeasurementResponseSchema.parse(
      await (await measure(fresh.access_token)).json(),
    );
    const newest = data.result.bloodPressure!.at(-1)!;
    expect(Date.parse(newest.dateTime)).toBeGreaterThan(before);
  });

  it('sends a notification on demand through the control API', async () => {
    sim.control.setNotificationUri(uri);
    const response = await control('/notifications/trigger', { accountId: JAMES, type: 'weight' });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { status: number }).status).toBe(200);
    expect(received.map((r) => r.body)).toEqual([
      { id: JAMES, timestamp: String(sim.control.now().getTime()), type: 'weight' },
    ]);
  });
});
