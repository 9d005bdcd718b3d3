import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_DEXCOM_CLIENT,
  DEXCOM_ACCOUNTS,
  startDexcomSimulator,
  type RunningDexcomSimulator,
} from './index';
import { readConsentForm, submitConsent } from '../common/consent-driver';
import {
  dexcomErrorSchema,
  dexcomListSchema,
  dexcomEgvSchema,
  dexcomTokenSchema,
} from './dexcom-schemas';

const insecure = { [oauth.allowInsecureRequests]: true } as const;
const REDIRECT_URI = 'http://127.0.0.1:3000/dexcom-callback';
const client: oauth.Client = { client_id: DEFAULT_DEXCOM_CLIENT.clientId };
const clientAuth = oauth.ClientSecretPost(DEFAULT_DEXCOM_CLIENT.clientSecret!);

let sim: RunningDexcomSimulator;
let as: oauth.AuthorizationServer;

beforeAll(async () => {
  sim = await startDexcomSimulator({ startTime: '2026-06-15T12:00:00Z' });
  // Dexcom publishes no discovery document; clients configure the endpoints.
  as = {
    issuer: sim.baseUrl,
    authorization_endpoint: sim.endpoints.authorization,
    token_endpoint: sim.endpoints.token,
  };
});
afterAll(() => sim.close());

function loginUrl(state: string, extra: Record<string, string> = {}) {
  return `${as.authorization_endpoint}?${new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'offline_access',
    state,
    ...extra,
  })}`;
}

async function exchange(
  account: string,
  codeVerifier: string | typeof oauth.nopkce = oauth.nopkce,
  extra = {},
) {
  const state = oauth.generateRandomState();
  const { redirect: callback } = await submitConsent(loginUrl(state, extra), {
    account,
    decision: 'allow',
  });
  const params = oauth.validateAuthResponse(as, client, callback, state);
  return oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    REDIRECT_URI,
    codeVerifier,
    insecure,
  );
}

async function egvs(accessToken: string) {
  const response = await oauth.protectedResourceRequest(
    accessToken,
    'GET',
    new URL(`${sim.endpoints.api}/egvs?startDate=2026-06-14T00:00:00&endDate=2026-06-15T00:00:00`),
    new Headers(),
    null,
    insecure,
  );
  return dexcomListSchema('egv', dexcomEgvSchema).parse(await response.json());
}

describe('Dexcom OAuth with an oauth4webapi client', () => {
  it('offers SandboxUser1…7 in a drop-down without a password', async () => {
    const response = await fetch(loginUrl('s'));
    expect(response.status).toBe(200);
    const html = await response.text();
    expect(readConsentForm(html).accounts).toEqual(DEXCOM_ACCOUNTS.map((a) => a.id));
    expect(html).toContain('<select');
    expect(html).toContain('<label for="account">Sandbox user</label>');
    expect(html).not.toMatch(/type="password"/);
  });

  it('completes authorize → token → refresh with rotation; the old refresh token is dead', async () => {
    const codeResponse = await exchange('SandboxUser7');
    dexcomTokenSchema.parse(await codeResponse.clone().json());
    const first = await oauth.processAuthorizationCodeResponse(as, client, codeResponse);
    expect(first.expires_in).toBe(7200);
    const firstData = await egvs(first.access_token);
    expect(firstData.records.length).toBeGreaterThan(200);
    expect(firstData.records.every((r) => r.transmitterGeneration === 'g7')).toBe(true);

    const refreshResponse = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      first.refresh_token!,
      insecure,
    );
    dexcomTokenSchema.parse(await refreshResponse.clone().json());
    const second = await oauth.processRefreshTokenResponse(as, client, refreshResponse);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect((await egvs(second.access_token)).userId).toBe(firstData.userId);

    const reuse = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth,
      first.refresh_token!,
      insecure,
    );
    expect(reuse.status).toBe(400);
    expect(dexcomErrorSchema.parse(await reuse.clone().json()).error).toBe('invalid_grant');
    await expect(oauth.processRefreshTokenResponse(as, client, reuse)).rejects.toBeInstanceOf(
      oauth.ResponseBodyError,
    );

    // The rotated token keeps working, and rotates again.
    const third = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, second.refresh_token!, insecure),
    );
    expect(third.refresh_token).not.toBe(second.refresh_token);
  });

  it('has no revocation endpoint (revocation is done by forgetting the tokens)', async () => {
    expect(as.revocation_endpoint).toBeUndefined();
    const response = await fetch(`${sim.baseUrl}/v2/oauth2/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: 'x' }),
    });
    expect(response.status).toBe(404);
  });

  it('does not do PKCE: a mismatching code_verifier is ignored', async () => {
    const challenge = await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier());
    const response = await exchange('SandboxUser1', oauth.generateRandomCodeVerifier(), {
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    expect(response.status).toBe(200);
  });

  it('answers Deny with error=access_denied', async () => {
    const { redirect: callback } = await submitConsent(loginUrl('deny-state'), {
      account: 'SandboxUser2',
      decision: 'deny',
    });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe('deny-state');
  });

  it('wants the client secret in the body: Basic alone is invalid_client (401)', async () => {
    const { redirect: callback } = await submitConsent(loginUrl('b'), {
      account: 'SandboxUser3',
      decision: 'allow',
    });
    const response = await fetch(sim.endpoints.token, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${DEFAULT_DEXCOM_CLIENT.clientId}:${DEFAULT_DEXCOM_CLIENT.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
      }),
    });
    expect(response.status).toBe(401);
    expect(dexcomErrorSchema.parse(await response.json()).error).toBe('invalid_client');
  });

  it('rejects a reused or foreign code and an unknown grant type', async () => {
    const { redirect: callback } = await submitConsent(loginUrl('c'), {
      account: 'SandboxUser4',
      decision: 'allow',
    });
    const code = callback.searchParams.get('code')!;
    const post = (body: Record<string, string>) =>
      fetch(sim.endpoints.token, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          client_id: DEFAULT_DEXCOM_CLIENT.clientId,
          client_secret: DEFAULT_DEXCOM_CLIENT.clientSecret!,
          ...body,
        }),
      });
    expect(
      (await post({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI })).status,
    ).toBe(200);
    const reused = await post({
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
    });
    expect(reused.status).toBe(400);
    expect(dexcomErrorSchema.parse(await reused.json()).error).toBe('invalid_grant');
    const password = await post({ grant_type: 'password', username: 'a', password: 'b' });
    expect(dexcomErrorSchema.parse(await password.json()).error).toBe('unsupported_grant_type');
  });
});
