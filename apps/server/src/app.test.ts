import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ERROR_REASONS, TRIAL_MESSAGES, errorBodySchema } from '@trialpulse/shared';
import { REPO_ROOT } from './config/paths';
import { createStaffUser, createTeam, signIn } from './test/fixtures';
import { createTestApp, csrfSession, type TestApp } from './test/test-app';

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Plumbing shared by every route: error body, CSRF, headers, limits, docs. A probe route
 * that writes a row is added the way a feature module adds one, so "changes nothing" is
 * checked against a real write.
 */
describe('server plumbing', () => {
  let ctx: TestApp;
  let app: FastifyInstance;
  const apiWriteRoutes: { method: string; url: string }[] = [];

  beforeAll(async () => {
    ctx = await createTestApp();
    app = ctx.app;
    await ctx.database.db.execute(
      sql`create table plumbing_probe (id serial primary key, name text not null)`,
    );
    app.addHook('onRoute', (route) => {
      const methods = Array.isArray(route.method) ? route.method : [route.method];
      for (const method of methods) {
        if (WRITE_METHODS.has(method) && route.url.startsWith('/api/'))
          apiWriteRoutes.push({ method, url: route.url });
      }
    });
    app.withTypeProvider<ZodTypeProvider>().post(
      '/api/plumbing-probe',
      {
        schema: {
          body: z.object({
            name: z.string().min(1, 'Name is required').max(10, 'Name is too long'),
          }),
        },
      },
      async (request) => {
        await ctx.database.db.execute(
          sql`insert into plumbing_probe (name) values (${request.body.name})`,
        );
        return { ok: true };
      },
    );
    app.get('/api/plumbing-probe/explode', async () => {
      throw new Error('secret internal detail: select * from users');
    });
    await app.ready();
  });
  afterAll(() => ctx.close());

  const probeRows = async () =>
    Number(
      (
        (await ctx.database.db.execute(sql`select count(*)::int as n from plumbing_probe`))
          .rows[0] as { n: number }
      ).n,
    );

  it('GET /api/appVersion answers the version from package.json', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/appVersion' });
    const expected = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8'),
    ).version;
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ version: expected });
  });

  it('GET /api/health reports the database reachable', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/health' });
    expect(response.json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('a write without the CSRF header gets 403 in the spec error body and changes nothing', async () => {
    const before = await probeRows();
    const { cookie } = await csrfSession(app);
    const response = await app.inject({
      method: 'POST',
      url: '/api/plumbing-probe',
      headers: { cookie },
      payload: { name: 'x' },
    });
    expect(response.statusCode).toBe(403);
    const body = errorBodySchema.parse(response.json());
    expect(body.reason).toBe('CSRF_TOKEN_INVALID');
    expect(Object.keys(response.json())).toEqual(
      expect.arrayContaining(['message', 'displayToUser', 'reason', 'location', 'errors', 'user']),
    );
    expect(await probeRows()).toBe(before);
  });

  it('a wrong or stale CSRF token is refused; the right one passes', async () => {
    const first = await csrfSession(app);
    const second = await csrfSession(app);
    const attempt = (headers: Record<string, string>) =>
      app.inject({ method: 'POST', url: '/api/plumbing-probe', headers, payload: { name: 'ok' } });

    expect((await attempt({ cookie: first.cookie, 'x-csrf-token': 'forged' })).statusCode).toBe(
      403,
    );
    // A token minted for another secret (another browser, or before the secret rotated).
    expect((await attempt({ cookie: first.cookie, 'x-csrf-token': second.token })).statusCode).toBe(
      403,
    );
    expect((await attempt({ 'x-csrf-token': first.token })).statusCode).toBe(403);
    const before = await probeRows();
    const accepted = await attempt({ cookie: first.cookie, 'x-csrf-token': first.token });
    expect(accepted.statusCode).toBe(200);
    expect(await probeRows()).toBe(before + 1);
  });

  it('every state-changing API route refuses a request without the CSRF header', async () => {
    // Every documented route of the real app, plus the probe added here.
    const document = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    // The /api routes: /fhir's are called by machines with bearer tokens, never cookies, and
    // ask no CSRF token (the security suite checks that a cookie gets nothing there).
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .filter(([path]) => path.startsWith('/api/'))
      .flatMap(([path, methods]) =>
        Object.keys(methods)
          .map((method) => method.toUpperCase())
          .filter((method) => WRITE_METHODS.has(method))
          .map((method) => ({ method, url: path.replace(/\{(\w+)\}/g, '1') })),
      );
    const routes = [...documented, ...apiWriteRoutes];
    expect(documented.length).toBeGreaterThan(20);
    for (const route of routes) {
      const url = route.url.replace(/:(\w+)/g, '1');
      const response = await app.inject({ method: route.method as 'POST', url, payload: {} });
      expect([route.method, url, response.statusCode]).toEqual([route.method, url, 403]);
    }
  });

  it('refuses NUL characters in JSON bodies with 400, before any handler runs', async () => {
    const before = await probeRows();
    const { cookie, token } = await csrfSession(app);
    const response = await app.inject({
      method: 'POST',
      url: '/api/plumbing-probe',
      headers: { cookie, 'x-csrf-token': token, 'content-type': 'application/json' },
      payload: '{"name":"a\\u0000b"}',
    });
    expect(response.statusCode).toBe(400);
    expect(errorBodySchema.parse(response.json()).message).toBe(
      'Text must not contain control characters.',
    );
    expect(await probeRows()).toBe(before);
  });

  it('invalid input → 400 with the field messages from the schema, and nothing written', async () => {
    const before = await probeRows();
    const { cookie, token } = await csrfSession(app);
    const response = await app.inject({
      method: 'POST',
      url: '/api/plumbing-probe',
      headers: { cookie, 'x-csrf-token': token },
      payload: { name: '' },
    });
    expect(response.statusCode).toBe(400);
    const body = errorBodySchema.parse(response.json());
    expect(body).toMatchObject({
      message: 'Name is required',
      displayToUser: true,
      reason: 'VALIDATION_ERROR',
      errors: [{ field: 'name', message: 'Name is required' }],
    });
    expect(await probeRows()).toBe(before);
  });

  it('an unexpected error → 500 "An error occurred." with a request id, no internals', async () => {
    const response = await app.inject({ method: 'GET', url: '/api/plumbing-probe/explode' });
    expect(response.statusCode).toBe(500);
    const body = errorBodySchema.parse(response.json());
    expect(body.message).toBe('An error occurred.');
    expect(body.displayToUser).toBe(false);
    expect(body.requestId).toBe(response.headers['x-request-id']);
    expect(response.body).not.toContain('secret internal detail');
    expect(response.body).not.toContain('at ');
  });

  it('an unknown API route → 404 in the error body, marked as a missing route by its reason', async () => {
    const { cookie, token } = await csrfSession(app); // a write passes the CSRF check first
    for (const [method, url] of [
      ['GET', '/api/no-such-thing'],
      ['POST', '/api/dataExport/noSuchCall'],
    ] as const) {
      const response = await app.inject({
        method,
        url: `${url}?x=1`,
        headers: { cookie, 'x-csrf-token': token },
      });
      expect(response.statusCode).toBe(404);
      const body = errorBodySchema.parse(response.json());
      expect(body).toMatchObject({
        message: `Route ${method} ${url} not found.`,
        displayToUser: true,
        reason: ERROR_REASONS.routeNotFound,
        location: url,
        errors: null,
        user: null,
      });
    }
  });

  it("a real route's 404 for a missing record does not carry the missing-route reason", async () => {
    const teamId = (await createTeam(ctx.database.db)).id;
    const admin = await signIn(
      app,
      ctx.database.db,
      await createStaffUser(ctx.database.db, { role: 'Admin', teamId }),
    );
    const response = await admin.get('/api/trialUsers/999999999');
    expect(response.statusCode).toBe(404);
    const body = errorBodySchema.parse(response.json());
    expect(body).toMatchObject({
      message: TRIAL_MESSAGES.notFound,
      displayToUser: true,
      reason: ERROR_REASONS.notFound,
    });
    expect(body.reason).not.toBe(ERROR_REASONS.routeNotFound);
  });

  it('an oversized body → 413 and nothing written', async () => {
    const before = await probeRows();
    const { cookie, token } = await csrfSession(app);
    const response = await app.inject({
      method: 'POST',
      url: '/api/plumbing-probe',
      headers: { cookie, 'x-csrf-token': token, 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(ctx.config.BODY_LIMIT_BYTES + 10) }),
    });
    expect(response.statusCode).toBe(413);
    expect(errorBodySchema.parse(response.json()).reason).toBe('PAYLOAD_TOO_LARGE');
    expect(await probeRows()).toBe(before);
  });

  it('sends the security headers on every response', async () => {
    for (const url of ['/api/appVersion', '/api/no-such-thing']) {
      const { headers } = await app.inject({ method: 'GET', url });
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).toContain("default-src 'self'");
      expect(headers['strict-transport-security']).toContain('max-age=31536000');
      expect(headers['x-content-type-options']).toBe('nosniff');
      expect(headers['referrer-policy']).toBe('same-origin');
    }
  });

  it('never trusts a client request id', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/api/appVersion',
      headers: { 'x-request-id': 'evil' },
    });
    expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('serves the OpenAPI document generated from the zod schemas at /api/docs', async () => {
    const document = (await app.inject({ method: 'GET', url: '/api/docs/json' })).json();
    expect(document.openapi).toMatch(/^3\./);
    expect(
      document.paths['/api/appVersion'].get.responses['200'].content['application/json'].schema,
    ).toMatchObject({
      type: 'object',
      properties: { version: { type: 'string' } },
    });
    expect((await app.inject({ method: 'GET', url: '/api/docs' })).statusCode).toBeLessThan(400);
  });

  it('redacts secrets and personal data from log lines', async () => {
    app.log.info(
      {
        password: 'Hunter2!xyz',
        user: { email: 'pat@example.org', token: 'tok-123' },
        body: { sfaToken: '123456' },
      },
      'redaction probe',
    );
    const line = ctx.logLines().find((text) => text.includes('redaction probe'));
    expect(line).toBeDefined();
    for (const secret of ['Hunter2!xyz', 'pat@example.org', 'tok-123', '123456'])
      expect(line).not.toContain(secret);
  });

  it('writes one log line per request, with the refusal reason on refused ones', async () => {
    const ok = await app.inject({ method: 'GET', url: '/api/appVersion?token=secret-in-query' });
    const refused = await app.inject({ method: 'GET', url: '/api/no-such-route' });
    const linesOf = (id: string) =>
      ctx
        .logLines()
        .map((text) => JSON.parse(text))
        .filter((line) => line.reqId === id);

    const okLines = linesOf(ok.headers['x-request-id'] as string);
    expect(okLines).toHaveLength(1);
    expect(okLines[0]).toMatchObject({
      level: 30,
      msg: 'request completed',
      statusCode: 200,
      req: { method: 'GET', path: '/api/appVersion' },
    });
    expect(typeof okLines[0].responseTime).toBe('number');
    expect(JSON.stringify(okLines[0])).not.toContain('secret-in-query');

    const refusedLines = linesOf(refused.headers['x-request-id'] as string);
    expect(refusedLines).toHaveLength(1);
    expect(refusedLines[0]).toMatchObject({ statusCode: 404, reason: 'ROUTE_NOT_FOUND' });
  });
});
