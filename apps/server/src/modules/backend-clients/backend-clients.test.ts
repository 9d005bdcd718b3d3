import { generateKeyPairSync } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, importJWK, type CryptoKey } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BACKEND_CLIENT_MESSAGES,
  type BackendClient,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { auditLog, backendClientAssertions, teams } from '../../db/schema';
import { createManualClock } from '../../lib/clock';
import { createTestApp, type TestApp } from '../../test/test-app';
import { type TestClient, createStaffUser, createTeam, signIn } from '../../test/fixtures';
import {
  backendKeyPair,
  backendToken,
  jwksText,
  registerBackendClient,
  requestBackendToken,
  signClientAssertion,
  tokenAudience,
  type BackendKeyPair,
} from './test-support';

/**
 * SMART Backend Services (issue 31): the team Admin's client registry, the token endpoint
 * and the /fhir guard, on the real app and database (PGlite, or PostgreSQL with
 * TEST_DATABASE_URL). A probe route behind the guard stands in for the Bulk Data routes.
 */
const clock = createManualClock(new Date('2026-11-21T09:00:00Z'));
let ctx: TestApp;
let teamA: number;
let teamB: number;
const staff = {} as Record<'Sys_Admin' | 'Admin' | 'User' | 'Viewer' | 'adminB', TestClient>;
const PROBE = '/fhir/probe';
const PROBE_PATIENT = '/fhir/probe-patient';

const db = () => ctx.database.db;
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const probe = (headers: Record<string, string> = {}, url = PROBE) =>
  ctx.app.inject({ method: 'GET', url, headers });
const audience = () => tokenAudience(ctx);
const auditOf = async (action: string) =>
  db().select().from(auditLog).where(eq(auditLog.action, action)).orderBy(auditLog.id);

/** A fresh client of team A (Admin) with its keys. */
async function clientOfA(
  options: { scopes?: string[]; keys?: BackendKeyPair; publicKey?: string } = {},
) {
  return registerBackendClient(staff.Admin, options);
}

/** A signed assertion for `client` at the test clock. */
const assertionFor = (
  client: BackendClient,
  keys: BackendKeyPair,
  extra: Partial<Parameters<typeof signClientAssertion>[1]> = {},
) =>
  signClientAssertion(keys, {
    clientId: client.clientId,
    audience: audience(),
    now: clock.now(),
    ...extra,
  });

beforeAll(async () => {
  ctx = await createTestApp({ clock });
  // A probe route as the Bulk Data routes use the guard: the caller it sets is the answer.
  ctx.app.get(PROBE, { preHandler: ctx.app.requireBackendClient() }, async (request) => ({
    caller: request.backendClient,
  }));
  ctx.app.get(
    PROBE_PATIENT,
    { preHandler: ctx.app.requireBackendClient({ scope: 'system/Patient.rs' }) },
    async (request) => ({ caller: request.backendClient }),
  );
  await ctx.app.ready();
  teamA = (await createTeam(db())).id;
  teamB = (await createTeam(db())).id;
  for (const role of ['Sys_Admin', 'Admin', 'User', 'Viewer'] as const)
    staff[role] = await signIn(ctx.app, db(), await createStaffUser(db(), { role, teamId: teamA }));
  staff.adminB = await signIn(
    ctx.app,
    db(),
    await createStaffUser(db(), { role: 'Admin', teamId: teamB }),
  );
});
afterAll(async () => {
  await ctx?.close();
});

describe('registering, listing and revoking backend clients (team Admin)', () => {
  it('registers a client with an ES384 JWKS: an opaque client id, listed for the team only, audited', async () => {
    const keys = await backendKeyPair('ES384');
    const response = await staff.Admin.post('/api/backendClients', {
      name: '  Analytics pipeline ',
      publicKey: jwksText(keys),
      scopes: ['system/Observation.rs', 'system/Patient.rs', 'system/Observation.rs'],
    });
    expect(response.statusCode, response.body).toBe(201);
    const { message, client } = response.json() as { message: string; client: BackendClient };
    expect(message).toBe(BACKEND_CLIENT_MESSAGES.registered);
    expect(client).toMatchObject({
      name: 'Analytics pipeline',
      scopes: ['system/Observation.rs', 'system/Patient.rs'],
      keyFormat: 'jwks',
      keyIds: [keys.publicJwk.kid],
      revokedAt: null,
    });
    // Opaque: random, long, not the row id.
    expect(client.clientId).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(client.clientId).not.toBe(String(client.id));

    const listed = (await staff.Admin.get('/api/backendClients')).json() as BackendClient[];
    expect(listed.map((c) => c.clientId)).toContain(client.clientId);
    const ofB = (await staff.adminB.get('/api/backendClients')).json() as BackendClient[];
    expect(ofB.map((c) => c.clientId)).not.toContain(client.clientId);

    const [audit] = (await auditOf('backendClient.register')).filter(
      (row) => row.entityId === String(client.id),
    );
    expect(audit).toMatchObject({ teamId: teamA, entityType: 'backend_client' });
    expect(audit!.after).toMatchObject({ clientId: client.clientId, keyIds: [keys.publicJwk.kid] });
  });

  it('registers a PEM public key (RS384) under its thumbprint, and the client gets tokens with it', async () => {
    const keys = await backendKeyPair('RS384');
    const pem = await exportSPKI((await importJWK(keys.publicJwk, keys.alg)) as CryptoKey);
    const { client } = await clientOfA({ publicKey: pem, keys });
    expect(client.keyFormat).toBe('pem');
    expect(client.keyIds).toEqual([keys.publicJwk.kid]);
    // The assertion names no kid: a PEM client has one key.
    const response = await requestBackendToken(ctx.app, {
      client_assertion: await assertionFor(client, keys, { header: { kid: undefined } }),
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('refuses keys that cannot verify an RS384/ES384 assertion, with the form messages', async () => {
    const p256 = await generateKeyPair('ES256', { extractable: true });
    const smallRsa = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const smallRsaPublic = smallRsa.publicKey.export({ type: 'spki', format: 'pem' }) as string;
    const es384 = await backendKeyPair('ES384');
    const p256Public = await exportJWK(p256.publicKey);
    const cases: [string, string][] = [
      ['not a key', BACKEND_CLIENT_MESSAGES.keyInvalid],
      ['{"keys": [', BACKEND_CLIENT_MESSAGES.keyInvalid],
      [
        smallRsa.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
        BACKEND_CLIENT_MESSAGES.keyPrivate,
      ],
      [
        JSON.stringify({ keys: [{ ...es384.publicJwk, d: 'secret' }] }),
        BACKEND_CLIENT_MESSAGES.keyPrivate,
      ],
      [JSON.stringify({ keys: [p256Public] }), BACKEND_CLIENT_MESSAGES.keyUnusable],
      [smallRsaPublic, BACKEND_CLIENT_MESSAGES.keyUnusable],
      [
        '-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----',
        BACKEND_CLIENT_MESSAGES.keyInvalid,
      ],
      [
        JSON.stringify({ keys: [{ ...es384.publicJwk, x: 'AAAA' }] }),
        BACKEND_CLIENT_MESSAGES.keyInvalid,
      ],
    ];
    for (const [publicKey, expected] of cases) {
      const response = await staff.Admin.post('/api/backendClients', {
        name: 'Bad key',
        publicKey,
        scopes: ['system/*.rs'],
      });
      expect([publicKey.slice(0, 30), response.statusCode, response.json().errors]).toEqual([
        publicKey.slice(0, 30),
        400,
        [{ field: 'publicKey', message: expected }],
      ]);
    }
    const fields = await staff.Admin.post('/api/backendClients', {
      name: ' ',
      publicKey: '',
      scopes: ['system/Encounter.rs'],
    });
    expect(fields.statusCode).toBe(400);
    expect(fields.json().errors).toEqual(
      expect.arrayContaining([
        { field: 'name', message: BACKEND_CLIENT_MESSAGES.nameRequired },
        { field: 'publicKey', message: BACKEND_CLIENT_MESSAGES.keyRequired },
        { field: 'scopes.0', message: BACKEND_CLIENT_MESSAGES.scopeInvalid },
      ]),
    );
    const noScopes = await staff.Admin.post('/api/backendClients', {
      name: 'x',
      publicKey: jwksText(es384),
      scopes: [],
    });
    expect(noScopes.json().errors).toEqual([
      { field: 'scopes', message: BACKEND_CLIENT_MESSAGES.scopesRequired },
    ]);
  });

  it('lets Admin and Sys_Admin manage the selected team’s clients; User and Viewer get 403', async () => {
    const { client } = await clientOfA();
    for (const role of ['User', 'Viewer'] as const) {
      expect((await staff[role].get('/api/backendClients')).statusCode).toBe(403);
      expect(
        (
          await staff[role].post('/api/backendClients', {
            name: 'x',
            publicKey: jwksText(await backendKeyPair()),
            scopes: ['system/*.rs'],
          })
        ).statusCode,
      ).toBe(403);
      expect((await staff[role].post(`/api/backendClients/${client.id}/revoke`)).statusCode).toBe(
        403,
      );
    }
    expect((await staff.Sys_Admin.get('/api/backendClients')).statusCode).toBe(200);
    const bySysAdmin = await registerBackendClient(staff.Sys_Admin);
    expect(
      ((await staff.Admin.get('/api/backendClients')).json() as BackendClient[]).map(
        (c) => c.clientId,
      ),
    ).toContain(bySysAdmin.client.clientId);
  });

  it("revokes once (audited); another team's client answers 404 and stays usable", async () => {
    const { client } = await clientOfA();
    const foreign = await staff.adminB.post(`/api/backendClients/${client.id}/revoke`);
    expect([foreign.statusCode, foreign.json().message]).toEqual([
      404,
      BACKEND_CLIENT_MESSAGES.notFound,
    ]);
    const revoked = await staff.Admin.post(`/api/backendClients/${client.id}/revoke`);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(revoked.json().client.revokedAt).toBe(clock.now().toISOString());
    const again = await staff.Admin.post(`/api/backendClients/${client.id}/revoke`);
    expect([again.statusCode, again.json().message]).toEqual([
      409,
      BACKEND_CLIENT_MESSAGES.alreadyRevoked,
    ]);
    expect((await staff.Admin.post('/api/backendClients/999999/revoke')).statusCode).toBe(404);
    const audits = (await auditOf('backendClient.revoke')).filter(
      (row) => row.entityId === String(client.id),
    );
    expect(audits).toHaveLength(1);
  });
});

describe('token endpoint (SMART Backend Services)', () => {
  it('publishes the SMART configuration with the absolute token endpoint', async () => {
    const response = await ctx.app.inject({
      method: 'GET',
      url: '/fhir/.well-known/smart-configuration',
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({
      token_endpoint: `${ctx.config.PUBLIC_URL}/fhir/auth/token`,
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS384', 'ES384'],
      grant_types_supported: ['client_credentials'],
      capabilities: ['client-confidential-asymmetric'],
    });
    expect(response.json().scopes_supported).toEqual(
      expect.arrayContaining(['system/*.rs', 'system/Observation.rs', 'system/Patient.rs']),
    );
  });

  for (const alg of ['ES384', 'RS384'] as const) {
    it(`issues a 5-minute bearer token for an ${alg} assertion, which the guard accepts with the client's team`, async () => {
      const { client, keys } = await clientOfA({ keys: await backendKeyPair(alg) });
      const response = await requestBackendToken(ctx.app, {
        client_assertion: await assertionFor(client, keys),
        scope: 'system/*.rs',
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.headers['cache-control']).toBe('no-store');
      const body = response.json();
      expect(body).toEqual({
        access_token: expect.any(String),
        token_type: 'bearer',
        expires_in: 300,
        scope: 'system/*.rs',
      });
      const used = await probe(bearer(body.access_token));
      expect(used.statusCode, used.body).toBe(200);
      expect(used.json().caller).toEqual({
        clientId: client.clientId,
        teamId: teamA,
        scopes: ['system/*.rs'],
      });
      const uses = (await auditOf('backendClient.use')).filter(
        (row) => (row.after as { clientId: string }).clientId === client.clientId,
      );
      expect(uses).toHaveLength(1);
      expect(uses[0]).toMatchObject({ teamId: teamA, requestId: used.headers['x-request-id'] });
      expect(uses[0]!.after).toMatchObject({ method: 'GET', route: PROBE, path: PROBE });
    });
  }

  it('grants the asked scopes the client is allowed (their intersection); none → invalid_scope', async () => {
    const { client, keys } = await clientOfA({
      scopes: ['system/Observation.rs', 'system/Patient.read'],
    });
    const grant = async (scope: string) => {
      const response = await requestBackendToken(ctx.app, {
        client_assertion: await assertionFor(client, keys),
        scope,
      });
      return [response.statusCode, response.json().scope ?? response.json().error];
    };
    expect(await grant('system/Observation.rs system/Device.rs')).toEqual([
      200,
      'system/Observation.rs',
    ]);
    expect(await grant('system/*.read')).toEqual([
      200,
      'system/Observation.rs system/Patient.read',
    ]);
    expect(await grant('system/Patient.rs system/Observation.cruds')).toEqual([
      200,
      'system/Patient.rs',
    ]);
    expect(await grant('system/Device.rs system/Group.read')).toEqual([400, 'invalid_scope']);
  });

  it('refuses expired assertions, exp more than 5 minutes ahead, a replayed jti, a wrong aud and an unknown client (401 invalid_client)', async () => {
    const { client, keys } = await clientOfA();
    const refused = async (assertion: string) => {
      const response = await requestBackendToken(ctx.app, { client_assertion: assertion });
      expect(response.statusCode, response.body).toBe(401);
      expect(response.json().error).toBe('invalid_client');
      expect(response.headers['cache-control']).toBe('no-store');
      return response.json().error_description as string;
    };
    const past = new Date(clock.now().getTime() - 10 * 60_000);
    expect(await refused(await assertionFor(client, keys, { now: past }))).toBe(
      'client_assertion has expired.',
    );
    expect(await refused(await assertionFor(client, keys, { expiresIn: 301 }))).toBe(
      'client_assertion exp must be at most 5 minutes in the future.',
    );
    expect(await refused(await assertionFor(client, keys, { claims: { exp: undefined } }))).toMatch(
      /exp/,
    );
    expect(await refused(await assertionFor(client, keys, { claims: { jti: undefined } }))).toMatch(
      /jti/,
    );
    expect(
      await refused(
        await assertionFor(client, keys, { audience: 'https://elsewhere.example/token' }),
      ),
    ).toBe(`client_assertion aud must be ${audience()}.`);
    expect(
      await refused(await assertionFor(client, keys, { claims: { sub: 'someone-else' } })),
    ).toBe('client_assertion iss and sub must both be the client_id.');
    expect(await refused(await assertionFor(client, keys, { clientId: 'no-such-client-id' }))).toBe(
      'Unknown or revoked client.',
    );
    // Signed by a key the client never registered.
    expect(await refused(await assertionFor(client, await backendKeyPair('ES384')))).toMatch(
      /signature/,
    );

    const once = await assertionFor(client, keys);
    expect((await requestBackendToken(ctx.app, { client_assertion: once })).statusCode).toBe(200);
    expect(await refused(once)).toBe('client_assertion jti has already been used.');
  });

  it('refuses assertions signed with HS256 or alg none', async () => {
    const { client } = await clientOfA();
    const claims = {
      iss: client.clientId,
      sub: client.clientId,
      aud: audience(),
      jti: 'hs256',
      exp: Math.floor(clock.now().getTime() / 1000) + 120,
    };
    const hs256 = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(client.clientId));
    const none = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, jti: 'none' })).toString('base64url')}.`;
    for (const assertion of [hs256, none]) {
      const response = await requestBackendToken(ctx.app, { client_assertion: assertion });
      expect([response.statusCode, response.json()]).toEqual([
        401,
        {
          error: 'invalid_client',
          error_description: 'client_assertion must be signed with RS384 or ES384.',
        },
      ]);
    }
  });

  it('answers malformed requests with OAuth errors (RFC 6749 §5.2)', async () => {
    const { client, keys } = await clientOfA();
    const assertion = await assertionFor(client, keys);
    const cases: [Record<string, string | undefined>, number, string][] = [
      [{ grant_type: undefined }, 400, 'invalid_request'],
      [{ grant_type: 'password' }, 400, 'unsupported_grant_type'],
      [{ client_assertion_type: 'urn:other' }, 400, 'invalid_request'],
      [{ scope: undefined }, 400, 'invalid_request'],
      [{ client_assertion: 'not.a.jwt' }, 401, 'invalid_client'],
      [{ client_id: 'another-client' }, 401, 'invalid_client'],
    ];
    for (const [fields, status, error] of cases) {
      const response = await requestBackendToken(ctx.app, {
        client_assertion: assertion,
        ...fields,
      } as { client_assertion: string });
      expect([fields, response.statusCode, response.json().error]).toEqual([fields, status, error]);
    }
    // The same client named beside its assertion (RFC 7523 §3) is fine.
    const named = await requestBackendToken(ctx.app, {
      client_assertion: assertion,
      client_id: client.clientId,
    });
    expect(named.statusCode, named.body).toBe(200);
    const json = await ctx.app.inject({
      method: 'POST',
      url: '/fhir/auth/token',
      payload: { grant_type: 'client_credentials', client_assertion: assertion },
    });
    expect([json.statusCode, json.json().error]).toEqual([400, 'invalid_request']);
  });

  it('is not behind the CSRF check: a request carrying a browser session and no CSRF token gets its token', async () => {
    const { client, keys } = await clientOfA();
    const response = await ctx.app.inject({
      method: 'POST',
      url: '/fhir/auth/token',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: staff.Admin.jar.header(),
      },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'system/*.rs',
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await assertionFor(client, keys),
      }).toString(),
    });
    expect(response.statusCode, response.body).toBe(200);
  });

  it('forgets assertion ids once their assertions have expired', async () => {
    const { client, keys } = await clientOfA();
    await backendToken(ctx, client, keys, { now: clock.now() });
    const rowsOf = async () =>
      (
        await db()
          .select()
          .from(backendClientAssertions)
          .innerJoin(sql`backend_clients`, sql`backend_clients.id = backend_client_id`)
          .where(and(sql`backend_clients.client_id = ${client.clientId}`))
      ).length;
    expect(await rowsOf()).toBe(1);
    const start = clock.now();
    clock.advance(241_000);
    try {
      const other = await clientOfA();
      await backendToken(ctx, other.client, other.keys, { now: clock.now() });
      expect(await rowsOf()).toBe(0);
    } finally {
      clock.set(start);
    }
  });
});

describe('the /fhir guard (bearer tokens only)', () => {
  it('answers 401 OperationOutcome (login) without a token, with a malformed or foreign token, and to a staff cookie', async () => {
    const expectLogin = async (headers: Record<string, string>) => {
      const response = await probe(headers);
      expect([response.statusCode, response.headers['content-type']]).toEqual([
        401,
        'application/fhir+json; charset=utf-8',
      ]);
      expect(response.json()).toEqual({
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'error', code: 'login', diagnostics: expect.any(String) }],
      });
      expect(response.headers['www-authenticate']).toMatch(/^Bearer/);
    };
    await expectLogin({});
    await expectLogin({ authorization: 'Bearer not-a-token' });
    await expectLogin({ authorization: 'Basic dXNlcjpwYXNz' });
    // A signed-in Sys_Admin's browser: cookies give no access to /fhir.
    await expectLogin({ cookie: staff.Sys_Admin.jar.header() });
    // A token signed with another secret (another installation).
    const forged = await new SignJWT({ team: teamA, scope: 'system/*.rs' })
      .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
      .setIssuer('trialpulse')
      .setAudience('trialpulse-fhir')
      .setSubject('x')
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(new TextEncoder().encode('another-secret-another-secret-12'));
    await expectLogin(bearer(forged));
  });

  it('refuses a token after its 5 minutes', async () => {
    const { client, keys } = await clientOfA();
    const { token } = await backendToken(ctx, client, keys, { now: clock.now() });
    const start = clock.now();
    try {
      clock.advance(299_000);
      expect((await probe(bearer(token))).statusCode).toBe(200);
      clock.advance(2_000);
      const expired = await probe(bearer(token));
      expect([expired.statusCode, expired.json().issue[0].code]).toEqual([401, 'login']);
    } finally {
      clock.set(start);
    }
  });

  it("stops a revoked client's token at its next request", async () => {
    const { client, keys } = await clientOfA();
    const { token } = await backendToken(ctx, client, keys, { now: clock.now() });
    expect((await probe(bearer(token))).statusCode).toBe(200);
    expect((await staff.Admin.post(`/api/backendClients/${client.id}/revoke`)).statusCode).toBe(
      200,
    );
    const after = await probe(bearer(token));
    expect([after.statusCode, after.json().issue[0]]).toEqual([
      401,
      { severity: 'error', code: 'login', diagnostics: 'The client has been revoked.' },
    ]);
    // Nor does it get a new token.
    const again = await requestBackendToken(ctx.app, {
      client_assertion: await assertionFor(client, keys),
    });
    expect([again.statusCode, again.json().error]).toEqual([401, 'invalid_client']);
  });

  it("gives each token its own client's team, and 403 forbidden for a scope not granted", async () => {
    const b = await registerBackendClient(staff.adminB, { scopes: ['system/Observation.rs'] });
    const { token: tokenB } = await backendToken(ctx, b.client, b.keys, {
      now: clock.now(),
      scope: 'system/Observation.rs',
    });
    const asB = await probe(bearer(tokenB));
    expect(asB.json().caller).toEqual({
      clientId: b.client.clientId,
      teamId: teamB,
      scopes: ['system/Observation.rs'],
    });
    const noPatient = await probe(bearer(tokenB), PROBE_PATIENT);
    expect([noPatient.statusCode, noPatient.json().issue[0].code]).toEqual([403, 'forbidden']);

    const a = await clientOfA({ scopes: ['system/Patient.read'] });
    const { token: tokenA } = await backendToken(ctx, a.client, a.keys, {
      now: clock.now(),
      scope: 'system/Patient.read',
    });
    const patient = await probe(bearer(tokenA), PROBE_PATIENT);
    expect([patient.statusCode, patient.json().caller.teamId]).toEqual([200, teamA]);
  });

  it("refuses tokens, and new ones, once the client's team is switched off or its subscription ended", async () => {
    for (const change of [
      { isActive: false },
      { subscriptionEnds: new Date(clock.now().getTime() - 1000) },
    ]) {
      const team = (await createTeam(db())).id;
      const admin = await signIn(
        ctx.app,
        db(),
        await createStaffUser(db(), { role: 'Admin', teamId: team }),
      );
      const { client, keys } = await registerBackendClient(admin);
      const { token } = await backendToken(ctx, client, keys, { now: clock.now() });
      expect((await probe(bearer(token))).statusCode).toBe(200);
      await db().update(teams).set(change).where(eq(teams.id, team));
      const refused = await probe(bearer(token));
      expect([refused.statusCode, refused.json().issue[0].diagnostics]).toEqual([
        401,
        "The client's team is not active (switched off or outside its subscription).",
      ]);
      const again = await requestBackendToken(ctx.app, {
        client_assertion: await assertionFor(client, keys),
      });
      expect([again.statusCode, again.json().error]).toEqual([401, 'invalid_client']);
    }
  });

  it('answers unknown /fhir routes with an OperationOutcome', async () => {
    const response = await ctx.app.inject({ method: 'GET', url: '/fhir/NoSuchThing' });
    expect([response.statusCode, response.headers['content-type']]).toEqual([
      404,
      'application/fhir+json; charset=utf-8',
    ]);
    expect(response.json().issue[0].code).toBe('not-found');
  });
});
