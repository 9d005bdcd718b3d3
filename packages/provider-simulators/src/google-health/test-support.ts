import * as oauth from 'oauth4webapi';
import { submitConsent } from '../common/consent-driver';
import type { RunningSimulator } from '../common/types';
import { DEFAULT_GOOGLE_CLIENT, GOOGLE_HEALTH_PATHS } from './index';
import { SCOPE_PREFIX } from './catalog';

/**
 * Test helpers for the Google Health simulator: an oauth4webapi configuration pointing at
 * it, and a one-call "sign in as this account" that drives the real consent page.
 */

export const REDIRECT_URI = 'http://localhost:5173/google-callback';

export const READ_SCOPES = [
  'activity_and_fitness',
  'health_metrics_and_measurements',
  'sleep',
  'nutrition',
  'profile',
  'settings',
].map((family) => `${SCOPE_PREFIX}.${family}.readonly`);

export const insecure = { [oauth.allowInsecureRequests]: true } as const;

export function authorizationServer(sim: RunningSimulator): oauth.AuthorizationServer {
  return {
    issuer: sim.baseUrl,
    authorization_endpoint: `${sim.baseUrl}${GOOGLE_HEALTH_PATHS.authorize}`,
    token_endpoint: `${sim.baseUrl}${GOOGLE_HEALTH_PATHS.token}`,
    revocation_endpoint: `${sim.baseUrl}${GOOGLE_HEALTH_PATHS.revoke}`,
  };
}

export const client: oauth.Client = { client_id: DEFAULT_GOOGLE_CLIENT.clientId };
export const clientAuth = oauth.ClientSecretPost(DEFAULT_GOOGLE_CLIENT.clientSecret);

export interface AuthorizeOptions {
  account?: string;
  scopes?: string[];
  uncheckScopes?: string[];
  prompt?: string;
  accessType?: 'offline' | 'online';
  codeVerifier?: string;
}

/** Authorize URL with PKCE; returns the URL and the values the callback needs. */
export async function buildAuthorizeUrl(sim: RunningSimulator, options: AuthorizeOptions = {}) {
  const codeVerifier = options.codeVerifier ?? oauth.generateRandomCodeVerifier();
  const state = oauth.generateRandomState();
  const url = new URL(`${sim.baseUrl}${GOOGLE_HEALTH_PATHS.authorize}`);
  url.searchParams.set('client_id', client.client_id);
  url.searchParams.set('redirect_uri', REDIRECT_URI);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('scope', (options.scopes ?? READ_SCOPES).join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('access_type', options.accessType ?? 'offline');
  if (options.prompt) url.searchParams.set('prompt', options.prompt);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url, state, codeVerifier };
}

/** Consent as `account` and exchange the code; returns the processed token response and `raw`. */
export async function signIn(sim: RunningSimulator, options: AuthorizeOptions = {}) {
  const as = authorizationServer(sim);
  const { url, state, codeVerifier } = await buildAuthorizeUrl(sim, options);
  const { redirect } = await submitConsent(url, {
    account: options.account ?? 'ava-thompson',
    ...(options.uncheckScopes && { uncheckScopes: options.uncheckScopes }),
  });
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
  // oauth4webapi normalises the body (e.g. lower-cases token_type); keep the wire form too.
  const raw: unknown = await response.clone().json();
  return Object.assign(await oauth.processAuthorizationCodeResponse(as, client, response), { raw });
}

/** GET a Health API path with a bearer token and parse the JSON. */
export async function apiGet(sim: RunningSimulator, accessToken: string, path: string) {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    headers: { authorization: `Bearer ${accessToken}` },
  });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

/** POST JSON to a Health API path with a bearer token. */
export async function apiPost(
  sim: RunningSimulator,
  accessToken: string,
  path: string,
  body: unknown,
) {
  const response = await fetch(`${sim.baseUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** A filter query string value, URL-encoded. */
export function filterParam(filter: string): string {
  return `filter=${encodeURIComponent(filter)}`;
}
