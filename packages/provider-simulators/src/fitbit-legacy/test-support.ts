import * as oauth from 'oauth4webapi';
import { submitConsent } from '../common/consent-driver';
import type { RunningSimulator } from '../common/types';
import { DEFAULT_FITBIT_CLIENT, FITBIT_LEGACY_PATHS } from './index';

/**
 * Test helpers for the Fitbit legacy simulator: oauth4webapi configuration for the
 * confidential demo client (Basic authentication) and a one-call sign-in.
 */

export const REDIRECT_URI = 'http://localhost:5173/fitbit-callback';
export const ALL_DATA_SCOPES = [
  'activity',
  'heartrate',
  'sleep',
  'weight',
  'nutrition',
  'oxygen_saturation',
  'cardio_fitness',
  'profile',
  'settings',
];
export const insecure = { [oauth.allowInsecureRequests]: true } as const;
export const client: oauth.Client = { client_id: DEFAULT_FITBIT_CLIENT.clientId };
export const clientAuth = oauth.ClientSecretBasic(DEFAULT_FITBIT_CLIENT.clientSecret);

export function authorizationServer(sim: RunningSimulator): oauth.AuthorizationServer {
  return {
    issuer: sim.baseUrl,
    authorization_endpoint: `${sim.baseUrl}${FITBIT_LEGACY_PATHS.authorize}`,
    token_endpoint: `${sim.baseUrl}${FITBIT_LEGACY_PATHS.token}`,
    revocation_endpoint: `${sim.baseUrl}${FITBIT_LEGACY_PATHS.revoke}`,
  };
}

export async function buildAuthorizeUrl(
  sim: RunningSimulator,
  options: { clientId?: string; scopes?: string[]; codeVerifier?: string } = {},
) {
  const codeVerifier = options.codeVerifier ?? oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(`${sim.baseUrl}${FITBIT_LEGACY_PATHS.authorize}`);
  url.searchParams.set('client_id', options.clientId ?? client.client_id);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', (options.scopes ?? ALL_DATA_SCOPES).join(' '));
  url.searchParams.set('redirect_uri', REDIRECT_URI);
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url, state, codeVerifier };
}

/** Consent as `account` and exchange the code; returns the raw token JSON. */
export async function signIn(sim: RunningSimulator, account = 'ava-thompson', scopes?: string[]) {
  const as = authorizationServer(sim);
  const { url, state, codeVerifier } = await buildAuthorizeUrl(sim, scopes ? { scopes } : {});
  const { redirect } = await submitConsent(url, { account });
  const params = oauth.validateAuthResponse(as, client, redirect, state);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth,
    params,
    REDIRECT_URI,
    codeVerifier,
    insecure,
  );
  if (response.status !== 200) throw new Error(`token exchange failed: ${await response.text()}`);
  return (await response.json()) as {
    access_token: string;
    refresh_token: string;
    expires_in: number;
    scope: string;
    token_type: string;
    user_id: string;
  };
}

/** GET a data path (e.g. `/1/user/-/profile.json`). */
export async function apiGet(
  sim: RunningSimulator,
  accessToken: string,
  path: string,
  headers: Record<string, string> = {},
) {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${accessToken}`, ...headers },
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as unknown };
}

/** A raw refresh request with Basic authentication, as a Fitbit client sends it. */
export function refreshRequest(
  sim: RunningSimulator,
  refreshToken: string,
  extra: Record<string, string> = {},
) {
  return fetch(`${sim.baseUrl}${FITBIT_LEGACY_PATHS.token}`, {
    method: 'POST',
    headers: {
      authorization: `Basic ${Buffer.from(`${DEFAULT_FITBIT_CLIENT.clientId}:${DEFAULT_FITBIT_CLIENT.clientSecret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
      ...extra,
    }),
  });
}
