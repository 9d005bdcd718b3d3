import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { readConsentForm, submitConsent } from '../common/consent-driver';
import type { RunningSimulator } from '../common/types';
import { errorResponse, oauthErrorResponse, tokenResponse } from './google-health.schemas';
import { startGoogleHealthSimulator } from './index';
import {
  READ_SCOPES,
  REDIRECT_URI,
  apiGet,
  authorizationServer,
  buildAuthorizeUrl,
  client,
  clientAuth,
  insecure,
  signIn,
} from './test-support';

let sim: RunningSimulator;
let testingSim: RunningSimulator;

beforeAll(async () => {
  sim = await startGoogleHealthSimulator({ startTime: '2026-11-20T15:30:00Z' });
  testingSim = await startGoogleHealthSimulator({
    startTime: '2026-11-20T15:30:00Z',
    publishingStatus: 'testing',
  });
});
afterAll(async () => {
  await sim.close();
  await testingSim.close();
});
beforeEach(() => {
  sim.control.reset();
  testingSim.control.reset();
});

describe('Google OAuth with oauth4webapi', () => {
  it('completes authorize → token → refresh → revoke, and refresh keeps the refresh token', async () => {
    const as = authorizationServer(sim);
    const tokens = await signIn(sim);
    expect(tokenResponse.parse(tokens.raw)).toMatchObject({
      token_type: 'Bearer',
      expires_in: 3599,
    });
    expect(tokens.refresh_token).toBeTruthy();
    expect(tokens.scope?.split(' ').sort()).toEqual([...READ_SCOPES].sort());

    const identity = await apiGet(sim, tokens.access_token, '/v4/users/me/identity');
    expect(identity.status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    // Google does not rotate: no new refresh token, and the old one keeps working.
    expect(refreshed.refresh_token).toBeUndefined();
    expect(refreshed.access_token).not.toBe(tokens.access_token);
    expect(refreshed.expires_in).toBe(3599);
    const again = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    expect(again.access_token).toBeTruthy();

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, insecure),
    );
    // Revoking one token ends the whole grant.
    const after = await apiGet(sim, tokens.access_token, '/v4/users/me/identity');
    expect(after.status).toBe(401);
    expect(errorResponse.parse(after.body).error.status).toBe('UNAUTHENTICATED');
    await expect(
      oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuth,
          tokens.refresh_token!,
          insecure,
        ),
      ),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('rejects a wrong PKCE verifier with invalid_grant', async () => {
    const as = authorizationServer(sim);
    const { url, state } = await buildAuthorizeUrl(sim);
    const { redirect } = await submitConsent(url, { account: 'ben-okafor' });
    const params = oauth.validateAuthResponse(as, client, redirect, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      oauth.generateRandomCodeVerifier(),
      insecure,
    );
    expect(response.status).toBe(400);
    expect(oauthErrorResponse.parse(await response.json())).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid code verifier.',
    });
  });

  it('accepts the client secret in a Basic header and rejects a reused code', async () => {
    const as = authorizationServer(sim);
    const basic = oauth.ClientSecretBasic('trialpulse-demo-google-secret');
    const { url, state, codeVerifier } = await buildAuthorizeUrl(sim);
    const { redirect } = await submitConsent(url);
    const params = oauth.validateAuthResponse(as, client, redirect, state);
    const first = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      basic,
      params,
      REDIRECT_URI,
      codeVerifier,
      insecure,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, first);
    const replay = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      basic,
      params,
      REDIRECT_URI,
      codeVerifier,
      insecure,
    );
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Bad Request',
    });
    // A replayed code revokes what it produced.
    expect((await apiGet(sim, tokens.access_token, '/v4/users/me/identity')).status).toBe(401);
  });

  it('rejects a wrong client secret with 401 invalid_client', async () => {
    const as = authorizationServer(sim);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost('wrong'),
      'x',
      insecure,
    );
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({
      error: 'invalid_client',
      error_description: 'Unauthorized',
    });
  });

  it('redirects with error=access_denied and the state when the user denies', async () => {
    const { url, state } = await buildAuthorizeUrl(sim);
    const { redirect, page } = await submitConsent(url, { decision: 'deny' });
    expect(redirect.origin + redirect.pathname).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe(state);
    expect(redirect.searchParams.has('code')).toBe(false);
    const form = readConsentForm(page);
    expect(form.accounts).toEqual([
      'ava-thompson',
      'ben-okafor',
      'carmen-diaz',
      'daniel-kim',
      'eve-schneider',
    ]);
    expect(form.scopes).toEqual(READ_SCOPES);
  });

  it('grants only the scopes left ticked (partial consent) and answers 403 for the others', async () => {
    const sleepScope = READ_SCOPES.find((scope) => scope.endsWith('.sleep.readonly'))!;
    const tokens = await signIn(sim, { uncheckScopes: [sleepScope] });
    expect(tokens.scope?.split(' ')).not.toContain(sleepScope);
    const sleep = await apiGet(sim, tokens.access_token, '/v4/users/me/dataTypes/sleep/dataPoints');
    expect(sleep.status).toBe(403);
    const details = errorResponse.parse(sleep.body).error.details ?? [];
    expect(details[0]).toMatchObject({ reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT' });
    expect(
      (await apiGet(sim, tokens.access_token, '/v4/users/me/dataTypes/steps/dataPoints?pageSize=1'))
        .status,
    ).toBe(200);
  });

  it('issues a refresh token only with access_type=offline, and again only with prompt=consent', async () => {
    const online = await signIn(sim, { accessType: 'online', account: 'daniel-kim' });
    expect(online.refresh_token).toBeUndefined();
    sim.control.reset();
    const first = await signIn(sim, { account: 'carmen-diaz' });
    expect(first.refresh_token).toBeTruthy();
    const second = await signIn(sim, { account: 'carmen-diaz' });
    expect(second.refresh_token).toBeUndefined();
    const forced = await signIn(sim, { account: 'carmen-diaz', prompt: 'consent' });
    expect(forced.refresh_token).toBeTruthy();
  });

  it('expires access tokens after 3599 s of simulated time', async () => {
    const tokens = await signIn(sim);
    sim.control.advanceClock(3598_000);
    expect((await apiGet(sim, tokens.access_token, '/v4/users/me/identity')).status).toBe(200);
    sim.control.advanceClock(2_000);
    const expired = await apiGet(sim, tokens.access_token, '/v4/users/me/identity');
    expect(expired.status).toBe(401);
    expect(expired.headers.get('www-authenticate')).toContain('invalid_token');
  });

  it('in testing mode says refresh_token_expires_in 604799 and expires the refresh token after 7 days', async () => {
    const as = authorizationServer(testingSim);
    const tokens = await signIn(testingSim);
    expect(tokenResponse.parse(tokens.raw).refresh_token_expires_in).toBe(604_799);
    testingSim.control.advanceClock(604_800_000);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      tokens.refresh_token!,
      insecure,
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Token has been expired or revoked.',
    });
  });

  it('shows an error page instead of redirecting for a bad client or redirect URI', async () => {
    const { url } = await buildAuthorizeUrl(sim);
    url.searchParams.set('redirect_uri', 'https://evil.example/callback');
    const mismatch = await fetch(url);
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain('redirect_uri_mismatch');
    url.searchParams.set('client_id', 'unknown');
    const unknown = await fetch(url);
    expect(unknown.status).toBe(401);
    expect(await unknown.text()).toContain('invalid_client');
  });

  it('serves discovery metadata usable by oauth4webapi', async () => {
    const issuer = new URL(sim.baseUrl);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oidc' }),
    );
    expect(as.token_endpoint).toBe(`${sim.baseUrl}/token`);
    expect(as.code_challenge_methods_supported).toContain('S256');
  });
});
