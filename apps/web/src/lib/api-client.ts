import { ERROR_REASONS, GENERIC_ERROR_MESSAGE, type ErrorBody } from '@trialpulse/shared';

/**
 * The one way the web app talks to the server: same-origin `/api`, cookies always sent,
 * JSON in and out, the CSRF header on every write (token fetched once, cached, refreshed
 * and the call retried once when the server rejects it), and failures thrown as `ApiError`
 * carrying the status and the spec's error body.
 */

export const API_BASE = '/api';
export const CSRF_HEADER = 'x-csrf-token';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue = string | number | boolean | null | undefined;

export type RequestOptions = {
  /** JSON-serialised unless it is FormData/Blob/URLSearchParams. */
  body?: unknown;
  query?: Record<string, QueryValue>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** How to read a successful answer; JSON by default (empty answers give `undefined`). */
  responseType?: 'json' | 'text' | 'blob';
  /**
   * A 401 from this call means "wrong credentials", not "session over" (login, change
   * password): it is not reported to the `onUnauthorized` listeners.
   */
  ignoreUnauthorized?: boolean;
  /**
   * Send the CSRF header on a GET too: for the few GETs that change state (the Fitbit
   * revoke, `GET /api/revokeAccessToken/{id}`). Writes always send it.
   */
  csrf?: boolean;
};

/** A failed call: `status` 0 means the request never got an answer (network error). */
export class ApiError extends Error {
  readonly status: number;
  readonly body: ErrorBody | null;

  constructor(status: number, body: ErrorBody | null, fallbackMessage?: string) {
    super(body?.message ?? fallbackMessage ?? `Request failed with status ${status}`);
    this.name = 'ApiError';
    this.status = status;
    this.body = body;
  }

  get reason(): string | null {
    return this.body?.reason ?? null;
  }

  get isNetworkError(): boolean {
    return this.status === 0;
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

/**
 * The text to show a user for a failed call: the server's message only when the server
 * marked it `displayToUser`, otherwise the caller's own text.
 */
export function userMessage(error: unknown, fallback: string = GENERIC_ERROR_MESSAGE): string {
  if (isApiError(error) && error.body?.displayToUser === true && error.body.message.trim()) {
    return error.body.message;
  }
  return fallback;
}

export async function apiRequest<T>(
  method: HttpMethod,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const needsCsrf = method !== 'GET' || options.csrf === true;
  const token = needsCsrf ? await getCsrfToken() : null;
  const first = await send(method, path, options, token);
  if (first.ok) return readBody<T>(first, options.responseType);

  let failed = await toApiError(first);
  if (token !== null && failed.status === 403 && failed.reason === ERROR_REASONS.csrf) {
    // Parallel writes rejected with the same stale token share one fresh fetch.
    if (cachedToken === token) resetCsrfToken();
    const retry = await send(method, path, options, await getCsrfToken());
    if (retry.ok) return readBody<T>(retry, options.responseType);
    failed = await toApiError(retry);
  }
  if (failed.status === 401 && !options.ignoreUnauthorized) {
    for (const listener of unauthorizedListeners) listener(path);
  }
  throw failed;
}

type UnauthorizedListener = (path: string) => void;
const unauthorizedListeners = new Set<UnauthorizedListener>();

/**
 * Calls `listener` with the path of every call the server answers 401 (the session is
 * over); the session timers use it to log out. Returns the unsubscribe function.
 */
export function onUnauthorized(listener: UnauthorizedListener): () => void {
  unauthorizedListeners.add(listener);
  return () => {
    unauthorizedListeners.delete(listener);
  };
}

export const api = {
  get: <T>(path: string, options?: Omit<RequestOptions, 'body'>) =>
    apiRequest<T>('GET', path, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('POST', path, { ...options, body }),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('PUT', path, { ...options, body }),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('PATCH', path, { ...options, body }),
  delete: <T>(path: string, body?: unknown, options?: RequestOptions) =>
    apiRequest<T>('DELETE', path, { ...options, body }),
};

let csrfToken: Promise<string> | null = null;
let cachedToken: string | null = null;

/** The cached CSRF token, fetched from `GET /api/csrf-token` the first time it is needed. */
export function getCsrfToken(): Promise<string> {
  if (!csrfToken) {
    const pending = fetchCsrfToken().then((token) => {
      if (csrfToken === pending) cachedToken = token;
      return token;
    });
    csrfToken = pending;
    // A failed fetch must not poison the cache: the next write tries again.
    pending.catch(() => {
      if (csrfToken === pending) csrfToken = null;
    });
  }
  return csrfToken;
}

/** Forgets the cached token (after logout, or when the server rejected it). */
export function resetCsrfToken(): void {
  csrfToken = null;
  cachedToken = null;
}

async function fetchCsrfToken(): Promise<string> {
  const response = await send('GET', '/csrf-token', {}, null);
  if (!response.ok) throw await toApiError(response);
  const data = (await readBody<{ csrfToken?: unknown }>(response, 'json')) ?? {};
  if (typeof data.csrfToken !== 'string' || data.csrfToken === '') {
    throw new ApiError(response.status, null, 'The server sent no CSRF token.');
  }
  return data.csrfToken;
}

async function send(
  method: HttpMethod,
  path: string,
  options: RequestOptions,
  token: string | null,
): Promise<Response> {
  const headers = new Headers({ Accept: 'application/json', ...options.headers });
  if (token) headers.set(CSRF_HEADER, token);

  let body: BodyInit | undefined;
  if (options.body !== undefined) {
    if (
      options.body instanceof FormData ||
      options.body instanceof Blob ||
      options.body instanceof URLSearchParams
    ) {
      body = options.body;
    } else {
      headers.set('Content-Type', 'application/json');
      body = JSON.stringify(options.body);
    }
  }

  try {
    return await fetch(buildUrl(path, options.query), {
      method,
      headers,
      body,
      credentials: 'include',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError(0, null, 'Network error');
  }
}

function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const url = `${API_BASE}${path.startsWith('/') ? path : `/${path}`}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null) params.append(key, String(value));
  }
  const search = params.toString();
  return search ? `${url}?${search}` : url;
}

async function readBody<T>(response: Response, type: RequestOptions['responseType']): Promise<T> {
  if (type === 'blob') return (await response.blob()) as T;
  const text = await response.text();
  if (type === 'text') return text as T;
  if (response.status === 204 || text === '') return undefined as T;
  return JSON.parse(text) as T;
}

async function toApiError(response: Response): Promise<ApiError> {
  let parsed: unknown = null;
  try {
    const text = await response.text();
    parsed = text ? JSON.parse(text) : null;
  } catch {
    parsed = null;
  }
  return new ApiError(response.status, toErrorBody(parsed));
}

/** Reads an error body leniently: a field the server left out never hides the rest. */
function toErrorBody(value: unknown): ErrorBody | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const raw = value as Record<string, unknown>;
  const errors = Array.isArray(raw.errors)
    ? raw.errors.filter(
        (entry): entry is { field: string; message: string } =>
          typeof entry === 'object' &&
          entry !== null &&
          typeof (entry as { field?: unknown }).field === 'string' &&
          typeof (entry as { message?: unknown }).message === 'string',
      )
    : null;
  return {
    message: typeof raw.message === 'string' ? raw.message : GENERIC_ERROR_MESSAGE,
    displayToUser: raw.displayToUser === true,
    reason: typeof raw.reason === 'string' ? raw.reason : null,
    location: typeof raw.location === 'string' ? raw.location : null,
    errors,
    user: raw.user ?? null,
    ...(typeof raw.requestId === 'string' ? { requestId: raw.requestId } : {}),
  };
}
