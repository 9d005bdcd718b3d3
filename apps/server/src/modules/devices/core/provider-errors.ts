import type { DeviceErrorType } from '@trialpulse/shared';
import type { DeviceUpstream } from '../../../db/schema';

/**
 * Typed failures of the provider clients, and their mapping to the device error types of
 * the spec (device-data §4). Messages are built from the upstream, HTTP status and the
 * provider's error code only: Fitbit echoes tokens and code verifiers in its error texts,
 * so a provider's own message or body never reaches an error we throw.
 */

/** The API a connection talks to (the schema's upstreams); the Fitbit brand has two (chosen per connection). */
export type ProviderUpstream = DeviceUpstream;

/**
 * The API an error names: its upstream and the label its provider plugin declares
 * (`ProviderPlugin.label`, carried by the client's configuration), so this kit names no brand.
 */
export type ProviderApi = {
  upstream: ProviderUpstream;
  label: string;
  /** The provider's own quota-reset header (`ProviderEndpoints.rateLimitResetHeader`). */
  rateLimitResetHeader?: string | undefined;
  /**
   * What a 410 Gone tells the participant's team to do, as the plugin declares it
   * (`ProviderPlugin.goneAdvice`); default `consent again`.
   */
  goneAdvice?: string | undefined;
};

/** Which kind of provider endpoint answered; decides how a status is read. */
export type ProviderEndpointKind = 'token' | 'revoke' | 'api';

export type ProviderErrorDetails = {
  upstream: ProviderUpstream;
  /** HTTP status, when the provider answered at all. */
  status?: number;
  /** The provider's error code (`invalid_grant`, `expired_token`, `UNAUTHENTICATED`…). */
  code?: string;
  cause?: unknown;
};

/** Base class: every failure a provider client throws is one of its subclasses. */
export class ProviderError extends Error {
  readonly upstream: ProviderUpstream;
  readonly status: number | undefined;
  readonly code: string | undefined;

  constructor(message: string, details: ProviderErrorDetails) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.upstream = details.upstream;
    this.status = details.status;
    this.code = details.code;
  }
}

/** The access token was refused (expired, revoked, malformed): refresh, then retry once. */
export class ProviderAuthError extends ProviderError {}

/** The refresh token (or code) is dead: the connection needs the participant's consent again. */
export class ProviderInvalidGrantError extends ProviderError {}

/**
 * The provider's quota is used up. `retryAfterSeconds` comes from `Retry-After` or
 * the reset header its provider declares (`ProviderApi.rateLimitResetHeader`); without either
 * it is the quota window we assume (a minute).
 */
export class ProviderRateLimitedError extends ProviderError {
  constructor(
    message: string,
    details: ProviderErrorDetails,
    readonly retryAfterSeconds: number,
  ) {
    super(message, details);
  }
}

/** Why the provider could not be used just now. */
export type UnavailableReason = 'server_error' | 'timeout' | 'network' | 'invalid_response';

/** 5xx, a timeout, a dropped connection, or an answer that is not the JSON it should be. */
export class ProviderUnavailableError extends ProviderError {
  constructor(
    message: string,
    details: ProviderErrorDetails,
    readonly reason: UnavailableReason,
  ) {
    super(message, details);
  }
}

export class ProviderNotFoundError extends ProviderError {}

/**
 * 410 Gone: the API (and its OAuth) was shut down, as the legacy Fitbit Web API was. The
 * connection needs re-consent, where the provider's plugin says (`ProviderApi.goneAdvice`);
 * its tokens cannot be carried over.
 */
export class ProviderGoneError extends ProviderError {}

/**
 * The token is valid but not enough: a scope was not granted (403) or the account cannot
 * use the API (Google `ACCOUNT_NOT_LINKED`). Refreshing does not help; consent again does.
 */
export class ProviderPermissionError extends ProviderError {}

/** The provider refused our request (other 4xx, `invalid_client`): a bug or misconfiguration. */
export class ProviderRequestError extends ProviderError {}

/**
 * Maps any error from a provider client to the spec's device error type. The clients never
 * produce `auth_check_failed`: that is the service's answer when its own check of a stored
 * connection fails.
 */
export function errorTypeOf(error: unknown): DeviceErrorType {
  if (error instanceof ProviderRateLimitedError) return 'rate_limit';
  if (
    error instanceof ProviderAuthError ||
    error instanceof ProviderInvalidGrantError ||
    error instanceof ProviderGoneError ||
    error instanceof ProviderPermissionError
  ) {
    return 'auth_error';
  }
  if (error instanceof ProviderNotFoundError) return 'not_found';
  if (error instanceof ProviderUnavailableError) {
    if (error.reason === 'server_error') return 'server_error';
    if (error.reason === 'invalid_response') return 'processing_error';
    return 'connection_error';
  }
  return 'processing_error';
}

/** What a 410 Gone asks of an upstream whose plugin declares no way back of its own. */
const DEFAULT_GONE_ADVICE = 'consent again';

/** Seconds to wait assumed for a 429 without a usable header: Google's quota is per minute. */
export const DEFAULT_RATE_LIMIT_WAIT_SECONDS = 60;

/**
 * Turns a non-2xx answer into a typed error. `body` is the already-read response text; it
 * is parsed for the provider's error code and then dropped.
 */
export function providerErrorFromResponse(
  api: ProviderApi,
  kind: ProviderEndpointKind,
  response: Response,
  body: string,
  now: Date,
): ProviderError {
  const status = response.status;
  const code = errorCodeOf(body, response.headers);
  const details: ProviderErrorDetails = { upstream: api.upstream, status, ...(code && { code }) };
  const what = `${api.label} ${ENDPOINT_LABELS[kind]} answered HTTP ${status}${code ? ` ${code}` : ''}`;

  if (status === 410) {
    return new ProviderGoneError(
      `${what}: the API was shut down; ${api.goneAdvice ?? DEFAULT_GONE_ADVICE}.`,
      details,
    );
  }
  if (status === 429) {
    const hinted = retryAfterSecondsOf(response, now, api.rateLimitResetHeader);
    return new ProviderRateLimitedError(
      `${what}: rate limited.`,
      details,
      hinted ?? DEFAULT_RATE_LIMIT_WAIT_SECONDS,
    );
  }
  if (status >= 500) return new ProviderUnavailableError(`${what}.`, details, 'server_error');
  if (kind === 'token' && code === 'invalid_grant') {
    return new ProviderInvalidGrantError(
      `${what}: the grant is no longer valid; consent again.`,
      details,
    );
  }
  if (kind === 'api') {
    if (status === 401)
      return new ProviderAuthError(`${what}: the access token was refused.`, details);
    if (status === 403 || code === 'ACCOUNT_NOT_LINKED' || code === 'FAILED_PRECONDITION') {
      return new ProviderPermissionError(`${what}: access not granted.`, details);
    }
    if (status === 404) return new ProviderNotFoundError(`${what}.`, details);
  }
  return new ProviderRequestError(`${what}.`, details);
}

/**
 * Seconds the provider asks us to wait: `Retry-After` (seconds or an HTTP date), else, on a
 * 429 only, the provider's own reset header when it has one (the legacy Fitbit Web API's
 * `Fitbit-Rate-Limit-Reset`: seconds to the top of the hour; sent on every answer, where it
 * says nothing about a 5xx).
 */
export function retryAfterSecondsOf(
  response: Response,
  now: Date,
  resetHeader?: string,
): number | undefined {
  const headers = response.headers;
  const retryAfter = headers.get('retry-after')?.trim();
  if (retryAfter) {
    if (/^\d+$/.test(retryAfter)) return Number(retryAfter);
    const at = Date.parse(retryAfter);
    if (Number.isFinite(at)) return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
  }
  if (response.status !== 429) return undefined;
  if (!resetHeader) return undefined;
  const reset = headers.get(resetHeader)?.trim();
  if (reset && /^\d+$/.test(reset)) return Number(reset);
  return undefined;
}

const ENDPOINT_LABELS: Record<ProviderEndpointKind, string> = {
  token: 'token endpoint',
  revoke: 'revoke endpoint',
  api: 'data API',
};

/**
 * The provider's error code from any of the shapes in use: OAuth `{error}`, Fitbit
 * `{errors:[{errorType}]}`, Google `{error:{status, details:[{reason}]}}`, or a
 * `WWW-Authenticate: Bearer error="…"` challenge (a 401 may come without a body). Only
 * identifier-like codes are kept, so nothing a provider echoes back can leak through.
 */
function errorCodeOf(body: string, headers: Headers): string | undefined {
  let parsed: unknown;
  try {
    parsed = body ? JSON.parse(body) : undefined;
  } catch {
    parsed = undefined;
  }
  const candidates: unknown[] = [];
  if (isRecord(parsed)) {
    const { error, errors } = parsed;
    if (typeof error === 'string') candidates.push(error);
    if (isRecord(error)) {
      const details = Array.isArray(error.details) ? error.details : [];
      candidates.push(...details.filter(isRecord).map((detail) => detail.reason));
      candidates.push(error.status);
    }
    if (Array.isArray(errors) && isRecord(errors[0])) candidates.push(errors[0].errorType);
  }
  candidates.push(/error="([^"]+)"/.exec(headers.get('www-authenticate') ?? '')?.[1]);
  const code = candidates.find(
    (candidate): candidate is string =>
      typeof candidate === 'string' && /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/.test(candidate),
  );
  return code;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
