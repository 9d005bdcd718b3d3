import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  DEFAULT_OMRON_CLIENT,
  OMRON_ACCOUNTS,
  startOmronSimulator,
  type RunningOmronSimulator,
} from './index';
import { readConsentForm, submitConsent } from '../common/consent-driver';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT_URI = 'http://localhost:3000/omron-callback';
const SCOPE = 'bloodpressure activity weight openid offline_access';
const ACCOUNT = OMRON_ACCOUNTS[1]!.id;
const client: oauth.Client = { client_id: DEFAULT_OMRON_CLIENT.clientId };
const clientAuth = oauth.ClientSecretPost(DEFAULT_OMRON_CLIENT.clientSecret!);

const tokenResponseSchema = z.strictObject({
  id_token: z.string(),
  access_token: z.string(),
  expires_in: z.literal(3600),
  token_type: z.literal('Bearer'),
  refresh_token: z.string(),
  scope: z.string(),
});

let sim: RunningOmronSimulator;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  // Wall-clock simulator: oauth4webapi checks ID token times against the real clock.
  sim = await startOmronSimulator();
  const issuer = new URL(sim.baseUrl);
  as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, insecure));
});
afterAll(() => sim.close());

/** Authorize (browser-driven consent) and exchange the code; returns the raw token response. */
async function authorize(options: { pkce?: boolean; scope?: string; verifier?: string } = {}) {
  const verifier = oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(as.authorization_endpoint!);
  url.search = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: options.scope ?? SCOPE,
    state,
    ...(options.pkce === false
      ? {}
      : {
          code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
          code_challenge_method: 'S256',
        }),
  }).toString();
  const { redirect: callback } = await submitConsent(url.href, {
    account: ACCOUNT,
    decision: 'allow',
  });
  const params = oauth.validateAuthResponse(as, client, callback, state);
  return oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    REDIRECT_URI,
    options.pkce === false ? oauth.nopkce : (options.verifier ?? verifier),
    insecure,
  );
}

function measurement(accessToken: string) {
  return oauth.protectedResourceRequest(
    accessToken,
    'POST',
    new URL(sim.endpoints.measurement),
    new Headers({ 'content-type': 'application/x-www-form-urlencoded' }),
    new URLSearchParams({ since: '2026-01-01', type: 'bloodpressure', limit: '5' }),
    insecure,
  );
}

describe('Omron OAuth with an oauth4webapi client', () => {
  it('discovery describes IdentityServer-style endpoints', () => {
    expect(as.authorization_endpoint).toBe(`${sim.baseUrl}/connect/authorize`);
    expect(as.token_endpoint).toBe(`${sim.baseUrl}/connect/token`);
    expect(as.revocation_endpoint).toBe(`${sim.baseUrl}/connect/revocation`);
  });

  it('completes authorize → token → refresh (rotated) → revoke', async () => {
    const codeResponse = await authorize();
    // Exact provider shape on the wire (oauth4webapi lower-cases token_type when processing).
    tokenResponseSchema.parse(await codeResponse.clone().json());
    const first = await oauth.processAuthorizationCodeResponse(as, client, codeResponse);
    expect(oauth.getValidatedIdTokenClaims(first)?.sub).toBe(ACCOUNT);
    expect((await measurement(first.access_token)).status).toBe(200);

    const refreshResponse = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      first.refresh_token!,
      insecure,
    );
    tokenResponseSchema.parse(await refreshResponse.clone().json());
    const refreshed = await oauth.processRefreshTokenResponse(as, client, refreshResponse);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect((await measurement(refreshed.access_token)).status).toBe(200);

    // One-time-only refresh tokens: the old one is spent.
    const reuse = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      first.refresh_token!,
      insecure,
    );
    expect(reuse.status).toBe(400);
    expect(await reuse.json()).toEqual({ error: 'invalid_grant' });

    const revoke = await oauth.revocationRequest(
      as,
      client,
      clientAuth,
      refreshed.refresh_token!,
      insecure,
    );
    await expect(oauth.processRevocationResponse(revoke)).resolves.toBeUndefined();

    // Revoking the grant ends its access token and refresh token too.
    await expect(measurement(refreshed.access_token)).rejects.toBeInstanceOf(
      oauth.WWWAuthenticateChallengeError,
    );
    const afterRevoke = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      refreshed.refresh_token!,
      insecure,
    );
    expect(afterRevoke.status).toBe(400);
  });

  it('rejects a PKCE verifier that does not match the challenge', async () => {
    const response = await authorize({ verifier: oauth.generateRandomCodeVerifier() });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ error: 'invalid_grant' });
  });

  it('accepts a flow without PKCE, and issues no refresh token without offline_access', async () => {
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      client,
      await authorize({ pkce: false, scope: 'bloodpressure openid' }),
    );
    expect(tokens.refresh_token).toBeUndefined();
    expect(tokens.expires_in).toBe(3600);
  });

  it('answers Deny with error=access_denied and the state', async () => {
    const url = `${as.authorization_endpoint}?${new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      response_type: 'code',
      scope: SCOPE,
      state: 'st-123',
    })}`;
    const { redirect: callback } = await submitConsent(url, { account: ACCOUNT, decision: 'deny' });
    expect(`${callback.origin}${callback.pathname}`).toBe(REDIRECT_URI);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('st-123');
    expect(callback.searchParams.has('code')).toBe(false);
  });

  it('offers every simulated account on the consent page and refuses unknown clients and redirect URIs', async () => {
    const base = { response_type: 'code', scope: SCOPE, state: 's' };
    const page = await fetch(
      `${as.authorization_endpoint}?${new URLSearchParams({ ...base, client_id: client.client_id, redirect_uri: REDIRECT_URI })}`,
    );
    expect(readConsentForm(await page.text()).accounts).toEqual(OMRON_ACCOUNTS.map((a) => a.id));

    const unknownClient = await fetch(
      `${as.authorization_endpoint}?${new URLSearchParams({ ...base, client_id: 'nope', redirect_uri: REDIRECT_URI })}`,
      { redirect: 'manual' },
    );
    expect(unknownClient.status).toBe(400);
    const foreignRedirect = await fetch(
      `${as.authorization_endpoint}?${new URLSearchParams({ ...base, client_id: client.client_id, redirect_uri: 'https://evil.example/cb' })}`,
      { redirect: 'manual' },
    );
    expect(foreignRedirect.status).toBe(400);
    expect(foreignRedirect.headers.get('location')).toBeNull();

    const badScope = await fetch(
      `${as.authorization_endpoint}?${new URLSearchParams({ ...base, scope: 'heartrate', client_id: client.client_id, redirect_uri: REDIRECT_URI })}`,
      { redirect: 'manual' },
    );
    expect(new URL(badScope.headers.get('location')!).searchParams.get('error')).toBe(
      'invalid_scope',
    );
  });

  it('accepts the secret in a Basic header too, and rejects a wrong secret with invalid_client', async () => {
    const code = await codeFor(REDIRECT_URI);
    const basic = await fetch(sim.endpoints.token, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${DEFAULT_OMRON_CLIENT.clientId}:${DEFAULT_OMRON_CLIENT.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT_URI,
      }),
    });
    expect(basic.status).toBe(200);

    const wrong = await fetch(sim.endpoints.token, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: await codeFor(REDIRECT_URI),
        redirect_uri: REDIRECT_URI,
        client_id: DEFAULT_OMRON_CLIENT.clientId,
        client_secret: 'wrong',
      }),
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({ error: 'invalid_client' });
  });

  it('uses each code once and only with its redirect URI', async () => {
    const code = await codeFor(REDIRECT_URI);
    const exchange = (redirectUri: string) =>
      fetch(sim.endpoints.token, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          client_id: DEFAULT_OMRON_CLIENT.clientId,
          client_secret: DEFAULT_OMRON_CLIENT.clientSecret!,
        }),
      });
    expect((await exchange('http://localhost:3000/other')).status).toBe(400);
    // The failed attempt used the code up.
    const again = await exchange(REDIRECT_URI);
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({ error: 'invalid_grant' });
  });
});

async function codeFor(redirectUri: string): Promise<string> {
  const url = `${as.authorization_endpoint}?${new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: SCOPE,
    state: 'x',
  })}`;
  const { redirect } = await submitConsent(url, { account: ACCOUNT, decision: 'allow' });
  return redirect.searchParams.get('code')!;
}
