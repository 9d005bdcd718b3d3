import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { submitConsent } from '../common/consent-driver';
import type { RunningSimulator } from '../common/types';
import { errorBody, tokenResponse } from './fitbit-legacy.schemas';
import {
  DEFAULT_FITBIT_PUBLIC_CLIENT,
  type FitbitSimulatorControl,
  startFitbitLegacySimulator,
} from './index';
import {
  REDIRECT_URI,
  apiGet,
  authorizationServer,
  buildAuthorizeUrl,
  client,
  clientAuth,
  insecure,
  refreshRequest,
  signIn,
} from './test-support';

let sim: RunningSimulator<FitbitSimulatorControl>;
const PROFILE = '/1/user/-/profile.json';

beforeAll(async () => {
  sim = await startFitbitLegacySimulator({ startTime: '2026-10-20T15:30:00Z' });
});
afterAll(async () => {
  await sim.close();
});
beforeEach(() => {
  sim.control.reset();
});

describe('Fitbit OAuth with oauth4webapi', () => {
  it('completes authorize → token → refresh → revoke with Basic client authentication', async () => {
    const as = authorizationServer(sim);
    const { url, state, codeVerifier } = await buildAuthorizeUrl(sim);
    const { redirect } = await submitConsent(url, { account: 'ava-thompson' });
    expect(redirect.hash).toBe('#_=_');
    const params = oauth.validateAuthResponse(as, client, redirect, state);
    const codeResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      clientAuth,
      params,
      REDIRECT_URI,
      codeVerifier,
      insecure,
    );
    const raw = tokenResponse.parse(await codeResponse.clone().json());
    expect(raw).toMatchObject({ expires_in: 28_800, token_type: 'Bearer', user_id: '7QXK2M' });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, codeResponse);
    const claims = JSON.parse(
      Buffer.from(tokens.access_token.split('.')[1]!, 'base64url').toString(),
    );
    expect(claims).toMatchObject({
      aud: client.client_id,
      sub: '7QXK2M',
      iss: 'Fitbit',
      typ: 'access_token',
    });
    expect(claims.scopes.split(' ')).toContain('ract');
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
    );
    expect(refreshed.refresh_token).toMatch(/^[0-9a-f]{64}$/);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    // Several access tokens may be valid at once.
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, clientAuth, refreshed.access_token, insecure),
    );
    // Revoking one token revokes all of the user's tokens for the app.
    for (const token of [tokens.access_token, refreshed.access_token]) {
      const after = await apiGet(sim, token, PROFILE);
      expect(after.status).toBe(401);
      expect(errorBody.parse(after.body).errors[0]?.errorType).toBe('invalid_token');
    }
    expect((await refreshRequest(sim, refreshed.refresh_token!)).status).toBe(400);
  });

  it('refresh tokens are single-use: an identical retry gets the identical answer until the new pair is used', async () => {
    const tokens = await signIn(sim);
    const first = await refreshRequest(sim, tokens.refresh_token);
    expect(first.status).toBe(200);
    const firstBody = (await first.json()) as { access_token: string; refresh_token: string };
    const retry = await refreshRequest(sim, tokens.refresh_token);
    expect(retry.status).toBe(200);
    expect(await retry.json()).toEqual(firstBody);
    // A different request with the old token is not a retry.
    const different = await refreshRequest(sim, tokens.refresh_token, { expires_in: '3600' });
    expect(different.status).toBe(400);

    // Using the new access token ends the grace window.
    expect((await apiGet(sim, firstBody.access_token, PROFILE)).status).toBe(200);
    const reused = await refreshRequest(sim, tokens.refresh_token);
    expect(reused.status).toBe(400);
    const error = errorBody.parse(await reused.json());
    expect(error).toEqual({
      errors: [
        {
          errorType: 'invalid_grant',
          message: `Refresh token invalid: ${tokens.refresh_token}. Visit https://dev.fitbit.com/docs/oauth2 for more information on the Fitbit Web API authorization process.`,
        },
      ],
      success: false,
    });
    // The new refresh token works.
    expect((await refreshRequest(sim, firstBody.refresh_token)).status).toBe(200);
  });

  it('using the new refresh token also ends the grace window', async () => {
    const tokens = await signIn(sim);
    const first = (await (await refreshRequest(sim, tokens.refresh_token)).json()) as {
      refresh_token: string;
    };
    expect((await refreshRequest(sim, first.refresh_token)).status).toBe(200);
    expect((await refreshRequest(sim, tokens.refresh_token)).status).toBe(400);
  });

  it('a wrong PKCE verifier is rejected with invalid_grant', async () => {
    const as = authorizationServer(sim);
    const { url, state } = await buildAuthorizeUrl(sim);
    const { redirect } = await submitConsent(url);
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
    expect(errorBody.parse(await response.json()).errors[0]?.errorType).toBe('invalid_grant');
  });

  it('a public client sends client_id in the body and no secret', async () => {
    const as = authorizationServer(sim);
    const publicClient = { client_id: DEFAULT_FITBIT_PUBLIC_CLIENT.clientId };
    const { url, state, codeVerifier } = await buildAuthorizeUrl(sim, {
      clientId: publicClient.client_id,
    });
    const { redirect } = await submitConsent(url, { account: 'ben-okafor' });
    const params = oauth.validateAuthResponse(as, publicClient, redirect, state);
    const response = await oauth.authorizationCodeGrantRequest(
      as,
      publicClient,
      oauth.None(),
      params,
      REDIRECT_URI,
      codeVerifier,
      insecure,
    );
    expect(tokenResponse.parse(await response.json()).user_id).toBe('4HP9TD');
  });

  it('a confidential client without a Basic header gets 401 invalid_client', async () => {
    const as = authorizationServer(sim);
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      oauth.ClientSecretPost('trialpulse-demo-fitbit-secret'),
      'x',
      insecure,
    );
    expect(response.status).toBe(401);
    expect(errorBody.parse(await response.json()).errors[0]?.errorType).toBe('invalid_client');
  });

  it('a new authorization replaces the previous refresh token (one per user and app)', async () => {
    const old = await signIn(sim, 'carmen-diaz');
    await signIn(sim, 'carmen-diaz');
    expect((await refreshRequest(sim, old.refresh_token)).status).toBe(400);
    // The old access token stays valid until it expires.
    expect((await apiGet(sim, old.access_token, PROFILE)).status).toBe(200);
  });

  it('access tokens expire after 8 hours of simulated time with expired_token', async () => {
    const tokens = await signIn(sim);
    sim.control.advanceClock(28_799_000);
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);
    sim.control.advanceClock(1_000);
    const expired = await apiGet(sim, tokens.access_token, PROFILE);
    expect(expired.status).toBe(401);
    expect(errorBody.parse(expired.body).errors[0]).toMatchObject({ errorType: 'expired_token' });
    // Refresh tokens never expire (until the API shuts down).
    sim.control.advanceClock(10 * 86_400_000);
    expect((await refreshRequest(sim, tokens.refresh_token)).status).toBe(200);
  });

  it('denial redirects with error=access_denied; bad requests show an error page', async () => {
    const { url, state } = await buildAuthorizeUrl(sim);
    const { redirect } = await submitConsent(url, { decision: 'deny' });
    expect(redirect.searchParams.get('error')).toBe('access_denied');
    expect(redirect.searchParams.get('state')).toBe(state);
    const bad = new URL(url);
    bad.searchParams.set('scope', 'activity steps');
    expect((await fetch(bad)).status).toBe(400);
    bad.searchParams.set('scope', 'activity');
    bad.searchParams.set('code_challenge', 'short');
    expect(await (await fetch(bad)).text()).toContain('code_challenge');
  });

  it('introspects tokens', async () => {
    const tokens = await signIn(sim);
    const response = await fetch(`${sim.baseUrl}/1.1/oauth2/introspect`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: tokens.access_token }),
    });
    expect(await response.json()).toMatchObject({
      active: true,
      user_id: '7QXK2M',
      token_type: 'access_token',
    });
  });

  it('answers 410 Gone everywhere after the (configurable) shutdown date', async () => {
    expect(sim.control.shutdownAt()?.toISOString()).toBe('2026-11-02T08:00:00.000Z');
    const tokens = await signIn(sim);
    sim.control.setShutdownAt('2026-10-20T16:00:00Z');
    sim.control.advanceClock(29 * 60_000);
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);
    sim.control.advanceClock(2 * 60_000);
    const data = await apiGet(sim, tokens.access_token, PROFILE);
    expect(data.status).toBe(410);
    expect(errorBody.parse(data.body).errors[0]?.errorType).toBe('gone');
    expect((await refreshRequest(sim, tokens.refresh_token)).status).toBe(410);
    const { url } = await buildAuthorizeUrl(sim);
    expect((await fetch(url)).status).toBe(410);
    // The control API keeps working; moving the date brings the API back.
    const moved = await fetch(`${sim.baseUrl}/__control/shutdown`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ at: null }),
    });
    expect(await moved.json()).toEqual({ shutdownAt: null });
    expect((await apiGet(sim, tokens.access_token, PROFILE)).status).toBe(200);
  });
});
