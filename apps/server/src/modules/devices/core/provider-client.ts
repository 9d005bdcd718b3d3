import * as oauth from 'oauth4webapi';
import type { z } from 'zod';
import type { DeviceBrandName } from '@trialpulse/shared';
import { type Clock, systemClock } from '../../../lib/clock';
import {
  type ProviderEndpointKind,
  type ProviderUpstream,
  ProviderError,
  ProviderRateLimitedError,
  ProviderUnavailableError,
  providerErrorFromResponse,
  retryAfterSecondsOf,
} from './provider-errors';

/**
 * What the brand clients share: their configuration, the HTTP wrapper (per-call timeout,
 * bounded retries with backoff for GETs only, rate-limit headers honoured, typed errors)
 * and the OAuth 2.0 calls built on oauth4webapi. Brand clients live in
 * `providers/<upstream>/<upstream>.client.ts` and add only their data calls.
 */

/** A brand as the clients' settings name it (lower case). */
export type ProviderBrand = Lowercase<DeviceBrandName>;

export type { ProviderUpstream } from './provider-errors';

/** Where a provider lives. Each brand file builds these for production or a simulator. */
export type ProviderEndpoints = {
  /** The consent page the participant's browser is sent to. */
  authorizeUrl: string;
  tokenUrl: string;
  /** Absent when the provider has no revoke endpoint. */
  revokeUrl?: string;
  /** Prefix of the data API paths, without a trailing slash. */
  apiBaseUrl: string;
  /** Expected `iss` of ID tokens (OpenID providers); default the token URL's origin. */
  issuer?: string;
  /**
   * The provider's own header of seconds until its quota resets, read on a 429 without
   * `Retry-After` (the legacy Fitbit Web API's `Fitbit-Rate-Limit-Reset`).
   */
  rateLimitResetHeader?: string;
};

export type ProviderConfig = ProviderEndpoints & {
  brand: ProviderBrand;
  upstream: ProviderUpstream;
  /** How errors and logs name the API: its provider plugin's `label`. */
  label: string;
  /** What a 410 Gone asks for: its provider plugin's `goneAdvice`, when it declares one. */
  goneAdvice?: string;
  clientId: string;
  /** Required unless `clientAuth` is 'none' (a public client). */
  clientSecret?: string;
  redirectUri: string;
  scopes: string[];
  /** 'basic': HTTP Basic header; 'body': client_secret in the form; 'none': public client. */
  clientAuth: 'basic' | 'body' | 'none';
  /** Per HTTP call, including reading the body; default 10 s. */
  timeoutMs?: number;
  retry?: Partial<RetryPolicy>;
};

/** Retries apply to GETs only; token, refresh and revoke POSTs are never repeated. */
export type RetryPolicy = {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A provider asking for a longer wait than this gets a ProviderRateLimitedError instead. */
  maxWaitSeconds: number;
};

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxWaitSeconds: 60,
};

export type TokenSet = {
  accessToken: string;
  refreshToken: string;
  expiresAt: Date;
  /** What the participant actually granted (consent may be partial). */
  scopes: string[];
  /** From the token answer (Fitbit's `user_id`, an ID token's `sub`); Google's comes from the identity call. */
  providerUserId?: string;
};

export type DeviceKind = 'TRACKER' | 'SCALE' | 'BLOOD_PRESSURE_MONITOR' | 'CGM';
export const BATTERY_STATUSES = ['High', 'Medium', 'Low', 'Empty'] as const;
export type BatteryStatus = (typeof BATTERY_STATUSES)[number];

/** One device of a connection, the same shape for every brand and upstream. */
export type ProviderDevice = {
  /** The provider's device id, when it has one. */
  id: string | null;
  deviceVersion: string;
  type: DeviceKind;
  battery: BatteryStatus | null;
  /** 0–100. */
  batteryLevel: number | null;
  /** ISO 8601; see each client for whether it carries an offset. */
  lastSyncTime: string | null;
};

/** A provider's battery text when it is one of the four Fitbit levels, else null. */
export function batteryStatusOf(value: string | undefined): BatteryStatus | null {
  return BATTERY_STATUSES.find((status) => status === value) ?? null;
}

/** The OAuth calls every brand client offers. */
export type OAuthClient = {
  readonly brand: ProviderBrand;
  readonly upstream: ProviderUpstream;
  /** Whether the provider checks PKCE; when false a code verifier is ignored. */
  readonly supportsPkce: boolean;
  /**
   * The consent URL. `state` must be bound to a server-side nonce by the caller, which also
   * checks it on the callback; `codeVerifier` adds an S256 challenge where supported.
   */
  authorizationUrl(input: { state: string; codeVerifier?: string }): Promise<URL>;
  /**
   * Exchanges the callback's code (the caller has checked `state`).
   * @throws ProviderInvalidGrantError for a bad, used or expired code or a PKCE mismatch.
   */
  exchangeCode(code: string, codeVerifier?: string): Promise<TokenSet>;
  /**
   * Refreshes once, never retried: most providers' refresh tokens are single-use. The
   * result carries the refresh token to store from now on (rotated, or the same one).
   * @throws ProviderInvalidGrantError when the refresh token is dead (needs re-consent).
   */
  refresh(refreshToken: string): Promise<TokenSet>;
};

export type RevocableOAuthClient = OAuthClient & {
  /** Revokes the grant; a token the provider already forgot counts as revoked. */
  revoke(token: string): Promise<void>;
};

/** What the device status cycle needs from any connection, whatever its upstream. */
export type DeviceProviderClient = OAuthClient & {
  listDevices(accessToken: string): Promise<ProviderDevice[]>;
};

/** Seams for tests and for the app's clock; production uses the defaults. */
export type ProviderClientDeps = {
  fetch?: typeof fetch;
  clock?: Clock;
  sleep?: (ms: number) => Promise<void>;
  /** [0, 1), for backoff jitter. */
  random?: () => number;
};

export type ApiRequest = {
  method: 'GET' | 'POST';
  /** Appended to `apiBaseUrl`, e.g. `/users/me/pairedDevices`. */
  path: string;
  accessToken: string;
  query?: Record<string, string | undefined>;
  /** Sent as `application/x-www-form-urlencoded` (a data call that is a form POST). */
  form?: Record<string, string | undefined>;
  /** Sent as `application/json` (Google Health rollups, which are reads despite the POST). */
  json?: unknown;
};

export type ProviderHttp = {
  readonly config: ProviderConfig;
  readonly clock: Clock;
  /**
   * One data call. GETs are retried on 429, 5xx and network failures with exponential
   * backoff and jitter, waiting what `Retry-After` / the provider's reset header ask when that
   * is within `maxWaitSeconds`; POSTs are sent once.
   * @throws ProviderError subclasses; never a raw fetch or JSON error.
   */
  requestJson(request: ApiRequest): Promise<unknown>;
  /** One attempt with the timeout; the whole body is read before the Response is returned. */
  fetchOnce(url: string, init: RequestInit): Promise<Response>;
};

/** Builds the HTTP wrapper for one provider configuration. */
export function createProviderHttp(
  config: ProviderConfig,
  deps: ProviderClientDeps = {},
): ProviderHttp {
  assertProviderConfig(config);
  const fetchImpl = deps.fetch ?? fetch;
  const clock = deps.clock ?? systemClock;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const random = deps.random ?? Math.random;
  const timeoutMs = config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...config.retry };
  const label = config.label;

  /** Sends and reads the body under one timeout, so a stalled body cannot hang a caller. */
  async function exchange(
    url: string,
    init: RequestInit,
  ): Promise<{ response: Response; body: string }> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    try {
      const response = await fetchImpl(url, { ...init, signal, redirect: 'manual' });
      return { response, body: await response.text() };
    } catch (cause) {
      if (timeout.aborted) {
        throw new ProviderUnavailableError(
          `${label} did not answer within ${timeoutMs} ms.`,
          { upstream: config.upstream },
          'timeout',
        );
      }
      throw new ProviderUnavailableError(
        `${label} could not be reached or dropped the connection.`,
        { upstream: config.upstream, cause: networkCause(cause) },
        'network',
      );
    }
  }

  async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
    const { response, body } = await exchange(url, init);
    const nullBody = [101, 204, 205, 304].includes(response.status);
    return new Response(nullBody ? null : body, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }

  async function requestJson(request: ApiRequest): Promise<unknown> {
    const url = new URL(`${config.apiBaseUrl}${request.path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, value);
    }
    const headers: Record<string, string> = {
      authorization: `Bearer ${request.accessToken}`,
      accept: 'application/json',
    };
    let body: URLSearchParams | string | undefined;
    if (request.json !== undefined) {
      body = JSON.stringify(request.json);
      headers['content-type'] = 'application/json';
    } else if (request.form) {
      body = new URLSearchParams();
      for (const [key, value] of Object.entries(request.form)) {
        if (value !== undefined) body.set(key, value);
      }
      headers['content-type'] = 'application/x-www-form-urlencoded';
    }
    // Only reads are repeated: a POST may have taken effect even when its answer was lost.
    const attempts = request.method === 'GET' ? Math.max(1, policy.maxAttempts) : 1;

    for (let attempt = 1; ; attempt++) {
      let failure: ProviderError;
      let hintSeconds: number | undefined;
      try {
        const { response, body: text } = await exchange(url.href, {
          method: request.method,
          headers,
          ...(body && { body }),
        });
        if (response.ok) return parseJson(text);
        hintSeconds = retryAfterSecondsOf(response, clock.now(), config.rateLimitResetHeader);
        failure = providerErrorFromResponse(config, 'api', response, text, clock.now());
      } catch (error) {
        if (!(error instanceof ProviderError)) throw error;
        failure = error;
      }
      const delay = retryDelayMs(failure, hintSeconds, attempt);
      if (attempt >= attempts || delay === null) throw failure;
      await sleep(delay);
    }
  }

  /** Milliseconds to wait before the next attempt, or null when retrying would be wrong. */
  function retryDelayMs(
    failure: ProviderError,
    hintSeconds: number | undefined,
    attempt: number,
  ): number | null {
    const transient =
      failure instanceof ProviderRateLimitedError ||
      (failure instanceof ProviderUnavailableError && failure.reason !== 'invalid_response');
    if (!transient) return null;
    // A wait longer than the cap is the caller's to schedule (the status cycle, a job).
    if (hintSeconds !== undefined && hintSeconds > policy.maxWaitSeconds) return null;
    const backoff = random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
    return Math.round(Math.max(backoff, (hintSeconds ?? 0) * 1000));
  }

  function parseJson(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw new ProviderUnavailableError(
        `${label} sent an answer that is not valid JSON.`,
        { upstream: config.upstream },
        'invalid_response',
      );
    }
  }

  return { config, clock, requestJson, fetchOnce };
}

/**
 * Validates a data answer against the shape a client relies on.
 * @throws ProviderUnavailableError ('invalid_response') naming only the failing paths.
 */
export function parseProviderResponse<T>(
  http: ProviderHttp,
  schema: z.ZodType<T>,
  data: unknown,
): T {
  const parsed = schema.safeParse(data);
  if (parsed.success) return parsed.data;
  const paths = parsed.error.issues.map((issue) => issue.path.join('.') || '(root)');
  throw new ProviderUnavailableError(
    `${http.config.label} sent an unexpected answer (${[...new Set(paths)].slice(0, 5).join(', ')}).`,
    { upstream: http.config.upstream },
    'invalid_response',
  );
}

/** Provider-specific OAuth details; everything else is standard. */
export type OAuthOptions = {
  /** Whether to send an S256 challenge and the verifier (not every provider supports PKCE). */
  pkce: boolean;
  /** Extra authorize parameters, e.g. Google's `access_type=offline`. */
  authorizeParams?: Record<string, string>;
  /** Extra refresh parameters, e.g. `redirect_uri` where the provider asks for it again. */
  refreshParams?: Record<string, string>;
  /** The provider's user id from a token answer, when it has one. */
  providerUserId?: (body: oauth.TokenEndpointResponse) => string | undefined;
};

/**
 * OAuth 2.0 with oauth4webapi, sent through the provider's HTTP wrapper (timeout, typed
 * errors, no retries). Errors are classified from the status and error code before
 * oauth4webapi sees the answer, since Fitbit's error bodies are not RFC 6749's.
 */
export function createOAuthClient(http: ProviderHttp, options: OAuthOptions): RevocableOAuthClient {
  const { config, clock } = http;
  const as: oauth.AuthorizationServer = {
    issuer: config.issuer ?? new URL(config.tokenUrl).origin,
    authorization_endpoint: config.authorizeUrl,
    token_endpoint: config.tokenUrl,
    ...(config.revokeUrl && { revocation_endpoint: config.revokeUrl }),
  };
  const client: oauth.Client = { client_id: config.clientId };
  const clientAuth = clientAuthOf(config);
  const label = config.label;

  // Plain http only ever reaches loopback simulators (assertProviderConfig).
  const allowHttp = [config.tokenUrl, config.revokeUrl].some((url) => url?.startsWith('http:'));

  const requestOptions = (kind: ProviderEndpointKind) => ({
    [oauth.allowInsecureRequests]: allowHttp,
    [oauth.customFetch]: async (
      url: string,
      init: oauth.CustomFetchOptions<'POST', URLSearchParams>,
    ) => {
      const response = await http.fetchOnce(url, init);
      if (response.ok) return response;
      const body = await response.text();
      if (kind === 'revoke' && response.status === 400 && alreadyRevoked(body)) {
        return new Response(null, { status: 200 });
      }
      throw providerErrorFromResponse(config, kind, response, body, clock.now());
    },
  });

  async function toTokenSet(
    process: () => Promise<oauth.TokenEndpointResponse>,
    previousRefreshToken?: string,
  ): Promise<TokenSet> {
    let body: oauth.TokenEndpointResponse;
    try {
      body = await process();
    } catch (error) {
      if (error instanceof ProviderError) throw error;
      // oauth4webapi's errors may quote the body (tokens included): keep only their code.
      const code = (error as { code?: unknown }).code;
      throw new ProviderUnavailableError(
        `${label} token endpoint sent an unusable answer${typeof code === 'string' ? ` (${code})` : ''}.`,
        { upstream: config.upstream },
        'invalid_response',
      );
    }
    // Google does not rotate: without a new refresh token the old one stays valid.
    const refreshToken = body.refresh_token ?? previousRefreshToken;
    if (!refreshToken) {
      throw new ProviderUnavailableError(
        `${label} issued no refresh token; check the offline-access scope or parameters.`,
        { upstream: config.upstream },
        'invalid_response',
      );
    }
    // RFC 6749 §5.1: no scope in the answer means the scope that was requested.
    const scopes = body.scope?.split(' ').filter(Boolean) ?? config.scopes;
    const providerUserId = options.providerUserId?.(body);
    return {
      accessToken: body.access_token,
      refreshToken,
      // Every provider sends expires_in; without it assume the shortest in use (an hour).
      expiresAt: new Date(clock.now().getTime() + (body.expires_in ?? 3600) * 1000),
      scopes,
      ...(providerUserId !== undefined && { providerUserId }),
    };
  }

  return {
    brand: config.brand,
    upstream: config.upstream,
    supportsPkce: options.pkce,

    async authorizationUrl({ state, codeVerifier }) {
      const url = new URL(config.authorizeUrl);
      url.searchParams.set('client_id', config.clientId);
      url.searchParams.set('redirect_uri', config.redirectUri);
      url.searchParams.set('response_type', 'code');
      url.searchParams.set('scope', config.scopes.join(' '));
      url.searchParams.set('state', state);
      if (options.pkce && codeVerifier !== undefined) {
        url.searchParams.set(
          'code_challenge',
          await oauth.calculatePKCECodeChallenge(codeVerifier),
        );
        url.searchParams.set('code_challenge_method', 'S256');
      }
      for (const [key, value] of Object.entries(options.authorizeParams ?? {})) {
        url.searchParams.set(key, value);
      }
      return url;
    },

    async exchangeCode(code, codeVerifier) {
      // The state was checked by the caller against its server-side nonce.
      const callback = oauth.validateAuthResponse(
        as,
        client,
        new URLSearchParams({ code }),
        oauth.skipStateCheck,
      );
      const verifier = options.pkce && codeVerifier !== undefined ? codeVerifier : oauth.nopkce;
      return toTokenSet(async () => {
        const response = await oauth.authorizationCodeGrantRequest(
          as,
          client,
          clientAuth,
          callback,
          config.redirectUri,
          verifier,
          requestOptions('token'),
        );
        return oauth.processAuthorizationCodeResponse(as, client, response);
      });
    },

    async refresh(refreshToken) {
      return toTokenSet(async () => {
        const response = await oauth.refreshTokenGrantRequest(
          as,
          client,
          clientAuth,
          refreshToken,
          {
            ...requestOptions('token'),
            ...(options.refreshParams && { additionalParameters: options.refreshParams }),
          },
        );
        return oauth.processRefreshTokenResponse(as, client, response);
      }, refreshToken);
    },

    async revoke(token) {
      if (!config.revokeUrl) throw new Error(`${label} has no revoke endpoint.`);
      const response = await oauth.revocationRequest(
        as,
        client,
        clientAuth,
        token,
        requestOptions('revoke'),
      );
      try {
        await oauth.processRevocationResponse(response);
      } catch {
        throw new ProviderUnavailableError(
          `${label} revoke endpoint sent an unusable answer.`,
          { upstream: config.upstream },
          'invalid_response',
        );
      }
    },
  };
}

/** Fresh PKCE verifier and state for an authorization; the caller stores both server-side. */
export function generateAuthorizationSecrets(): { state: string; codeVerifier: string } {
  return { state: oauth.generateRandomState(), codeVerifier: oauth.generateRandomCodeVerifier() };
}

/**
 * Rejects configurations that would send secrets in the clear: plain http is allowed only
 * to loopback hosts (the simulators in demo mode and tests).
 */
export function assertProviderConfig(config: ProviderConfig): void {
  const urls = [config.authorizeUrl, config.tokenUrl, config.apiBaseUrl, config.revokeUrl];
  for (const value of urls) {
    if (value === undefined) continue;
    const url = new URL(value);
    const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback)) {
      throw new Error(`${config.upstream}: ${url.origin} must use https.`);
    }
  }
  if (config.clientAuth !== 'none' && !config.clientSecret) {
    throw new Error(`${config.upstream}: clientAuth '${config.clientAuth}' needs a client secret.`);
  }
  if (config.apiBaseUrl.endsWith('/')) {
    throw new Error(`${config.upstream}: apiBaseUrl must not end with a slash.`);
  }
}

function clientAuthOf(config: ProviderConfig): oauth.ClientAuth {
  if (config.clientAuth === 'none') return oauth.None();
  const secret = config.clientSecret ?? '';
  return config.clientAuth === 'basic'
    ? oauth.ClientSecretBasic(secret)
    : oauth.ClientSecretPost(secret);
}

/** Google answers 400 `invalid_token` for a token it no longer knows (RFC 7009 says 200). */
function alreadyRevoked(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    return parsed.error === 'invalid_token';
  } catch {
    return false;
  }
}

/** Keeps a network failure's code (ECONNRESET, UND_ERR_SOCKET) without the request. */
function networkCause(error: unknown): Error | undefined {
  const inner = (error as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const code = typeof inner?.code === 'string' ? inner.code : undefined;
  const message = typeof inner?.message === 'string' ? inner.message : undefined;
  if (!code && !message) return undefined;
  return Object.assign(new Error(message ?? code), { code });
}
