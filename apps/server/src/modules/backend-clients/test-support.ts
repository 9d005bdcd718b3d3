import { randomUUID } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import {
  SignJWT,
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  type CryptoKey,
  type JWK,
} from 'jose';
import type { BackendClient } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import type { TestApp } from '../../test/test-app';
import { type TestClient, createStaffUser, signIn } from '../../test/fixtures';
import { JWT_BEARER_ASSERTION } from './backend-clients.service';
import { TOKEN_PATH, tokenEndpointUrl } from './smart.routes';

/**
 * Test helpers for SMART Backend Services clients (issue 31). The short way, for a test that
 * needs a bearer token of a team's backend client:
 *
 *   const { token, clientId } = await backendClientOfTeam(ctx, teamId);
 *   await ctx.app.inject({ url: '/fhir/…', headers: { authorization: `Bearer ${token}` } });
 *
 * It signs in an Admin of the team, registers a client with a fresh key pair through
 * `POST /api/backendClients`, signs a client assertion and calls the token endpoint, as a
 * real pipeline does. The pieces are exported for tests that vary one step.
 */

export type AssertionAlgorithm = 'ES384' | 'RS384';

/** A client's key pair: the private key signs assertions, the public JWK is registered. */
export type BackendKeyPair = {
  alg: AssertionAlgorithm;
  privateKey: CryptoKey;
  publicJwk: JWK & { kid: string; alg: AssertionAlgorithm };
};

export async function backendKeyPair(alg: AssertionAlgorithm = 'ES384'): Promise<BackendKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(jwk);
  return { alg, privateKey, publicJwk: { ...jwk, kid, alg, use: 'sig' } };
}

/** A JWKS document (as an Admin pastes it) of the pairs' public keys. */
export function jwksText(...pairs: BackendKeyPair[]): string {
  return JSON.stringify({ keys: pairs.map((pair) => pair.publicJwk) });
}

/** Registers a client through the Admin's API; throws unless it answers 201. */
export async function registerBackendClient(
  admin: TestClient,
  options: {
    name?: string;
    scopes?: string[];
    keys?: BackendKeyPair;
    /** The key text to register instead of `keys`' JWKS (a PEM, a JWKS of several keys). */
    publicKey?: string;
  } = {},
): Promise<{ client: BackendClient; keys: BackendKeyPair }> {
  const keys = options.keys ?? (await backendKeyPair());
  const response = await admin.post('/api/backendClients', {
    name: options.name ?? `Pipeline ${randomUUID().slice(0, 8)}`,
    publicKey: options.publicKey ?? jwksText(keys),
    scopes: options.scopes ?? ['system/*.rs'],
  });
  if (response.statusCode !== 201)
    throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  return { client: response.json().client as BackendClient, keys };
}

/**
 * A client assertion as SMART Backend Services asks: iss = sub = clientId, aud = the token
 * endpoint, exp `expiresIn` seconds after `now`, a fresh jti. Every claim and header can be
 * overridden (or removed with `undefined`) to test a refusal.
 */
export async function signClientAssertion(
  keys: BackendKeyPair,
  options: {
    clientId: string;
    audience: string;
    now?: Date;
    expiresIn?: number;
    claims?: Record<string, unknown>;
    header?: Record<string, unknown>;
  },
): Promise<string> {
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const claims: Record<string, unknown> = {
    iss: options.clientId,
    sub: options.clientId,
    aud: options.audience,
    jti: randomUUID(),
    iat: issuedAt,
    exp: issuedAt + (options.expiresIn ?? 240),
    ...options.claims,
  };
  const header = { alg: keys.alg, kid: keys.publicJwk.kid, typ: 'JWT', ...options.header };
  return new SignJWT(withoutUndefined(claims))
    .setProtectedHeader(withoutUndefined(header) as { alg: string })
    .sign(keys.privateKey);
}

/** `POST /fhir/auth/token` with a form body (fields default to a valid request). */
export async function requestBackendToken(
  app: FastifyInstance,
  fields: Record<string, string | undefined> & { client_assertion: string },
): Promise<LightMyRequestResponse> {
  const form = withoutUndefined({
    grant_type: 'client_credentials',
    scope: 'system/*.rs',
    client_assertion_type: JWT_BEARER_ASSERTION,
    ...fields,
  }) as Record<string, string>;
  return app.inject({
    method: 'POST',
    url: TOKEN_PATH,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(form).toString(),
  });
}

/** The token endpoint's absolute URL in this test app (the `aud` of assertions). */
export function tokenAudience(ctx: Pick<TestApp, 'config'>): string {
  return tokenEndpointUrl(ctx.config.PUBLIC_URL);
}

/**
 * A bearer token for `client` signed with `keys`, through the real token endpoint. Throws
 * unless it answers 200.
 */
export async function backendToken(
  ctx: Pick<TestApp, 'app' | 'config'>,
  client: { clientId: string },
  keys: BackendKeyPair,
  options: { scope?: string; now?: Date } = {},
): Promise<{ token: string; scope: string }> {
  const assertion = await signClientAssertion(keys, {
    clientId: client.clientId,
    audience: tokenAudience(ctx),
    ...(options.now && { now: options.now }),
  });
  const response = await requestBackendToken(ctx.app, {
    client_assertion: assertion,
    scope: options.scope ?? 'system/*.rs',
  });
  if (response.statusCode !== 200)
    throw new Error(`token request failed: ${response.statusCode} ${response.body}`);
  const body = response.json() as { access_token: string; scope: string };
  return { token: body.access_token, scope: body.scope };
}

/**
 * A backend client of `teamId` and a bearer token for it: signs in a new Admin of the team,
 * registers a client with `scopes` (default `system/*.rs`) and asks a token for `scope`
 * (default: every scope registered). `now` signs the assertion at the app's clock when a
 * test moves it.
 */
export async function backendClientOfTeam(
  ctx: Pick<TestApp, 'app' | 'config' | 'database'>,
  teamId: number,
  options: { scopes?: string[]; scope?: string; alg?: AssertionAlgorithm; now?: Date } = {},
): Promise<{
  token: string;
  scope: string;
  clientId: string;
  client: BackendClient;
  keys: BackendKeyPair;
  admin: TestClient;
}> {
  const user = await createStaffUser(ctx.database.db, { role: 'Admin', teamId });
  const admin = await signIn(ctx.app, ctx.database.db, user);
  const scopes = options.scopes ?? ['system/*.rs'];
  const { client, keys } = await registerBackendClient(admin, {
    scopes,
    keys: await backendKeyPair(options.alg ?? 'ES384'),
  });
  const { token, scope } = await backendToken(ctx, client, keys, {
    scope: options.scope ?? scopes.join(' '),
    ...(options.now && { now: options.now }),
  });
  return { token, scope, clientId: client.clientId, client, keys, admin };
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined));
}
