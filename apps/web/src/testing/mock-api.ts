import { vi } from 'vitest';
import { createChallenge } from 'altcha-lib/v1';
import type { SessionUser } from '@/lib/session';

export type RecordedCall = {
  method: string;
  url: string;
  headers: Headers;
  body: unknown;
  credentials: RequestCredentials | undefined;
};

type Reply = { status?: number; body?: unknown } | Response;
type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

/**
 * Replaces `fetch` with a tiny router keyed by "METHOD /path" (query string ignored).
 * Unknown calls answer 404 with the spec's error body. Every call is recorded.
 */
export function mockApi(handlers: Record<string, Handler | Reply>) {
  const calls: RecordedCall[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init.method ?? 'GET').toUpperCase();
    const call: RecordedCall = {
      method,
      url,
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? JSON.parse(init.body) : init.body,
      credentials: init.credentials,
    };
    calls.push(call);
    const handler = handlers[`${method} ${url.split('?')[0]}`];
    const reply = typeof handler === 'function' ? await handler(call) : handler;
    if (reply instanceof Response) return reply;
    if (!reply) return json(404, errorBody('Not found', false, 'NOT_FOUND'));
    return json(reply.status ?? 200, pagedIfAsked(url, reply.status ?? 200, reply.body));
  });
  vi.stubGlobal('fetch', fetchMock);
  return { calls, fetchMock };
}

/**
 * A list handler answers the whole list (an array), as the spec's call does; when the call
 * asks for a page (decision 0040: `pageIndex`/`pageSize`), the mock answers `{rows, total}`
 * as the server would: rows containing the filter text in any field, sorted by `sortBy`
 * (text case-insensitively, then in list order), then the page. A stand-in for the
 * server's paging, which the server's own tests check.
 */
function pagedIfAsked(url: string, status: number, body: unknown): unknown {
  const query = new URL(url, 'http://localhost').searchParams;
  if (
    status >= 300 ||
    !Array.isArray(body) ||
    (!query.has('pageIndex') && !query.has('pageSize'))
  ) {
    return body;
  }
  const rows = body as Record<string, unknown>[];
  const needle = (query.get('filter') ?? '').trim().toLowerCase();
  const kept = needle
    ? rows.filter((row) =>
        Object.values(row).some(
          (value) =>
            (typeof value === 'string' || typeof value === 'number') &&
            String(value).toLowerCase().includes(needle),
        ),
      )
    : rows;
  const sortBy = query.get('sortBy');
  const direction = query.get('sortDir') === 'desc' ? -1 : 1;
  const key = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);
  const sorted = sortBy
    ? kept
        .map((row, index) => ({ row, index }))
        .sort((a, b) => {
          const x = key(a.row[sortBy]) as string | number | null;
          const y = key(b.row[sortBy]) as string | number | null;
          if (x === y || x === null || y === null) return a.index - b.index;
          return (x < y ? -1 : 1) * direction;
        })
        .map(({ row }) => row)
    : kept;
  const size = Number(query.get('pageSize') ?? 10);
  const index = Number(query.get('pageIndex') ?? 0);
  return { rows: sorted.slice(index * size, (index + 1) * size), total: sorted.length };
}

export function json(status: number, body: unknown): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  });
}

export function errorBody(
  message: string,
  displayToUser: boolean,
  reason: string | null = null,
  user: unknown = null,
) {
  return { message, displayToUser, reason, location: null, errors: null, user };
}

export function makeUser(overrides: Partial<SessionUser> = {}): SessionUser {
  return {
    id: 7,
    email: 'ada@example.org',
    username: 'ada',
    first_name: 'Ada',
    last_name: 'Lovelace',
    role: 'Admin',
    teamId: 1,
    team_name: 'Cardio Lab',
    teamStatus: 'Active',
    hiddenFields: [],
    authStatus: 'Authorized',
    ...overrides,
  };
}

export type SessionFixture =
  | { kind: 'signed-out' }
  | { kind: 'second-factor'; authStatus: string }
  | { kind: 'signed-in'; user: SessionUser };

/** The answers of the calls every page makes: session, version, CSRF token, logout. */
export function baseHandlers(session: SessionFixture): Record<string, Handler | Reply> {
  const currentUser = (): Reply => {
    switch (session.kind) {
      case 'signed-out':
        return { status: 401, body: errorBody('Not signed in', false, 'UNAUTHENTICATED') };
      case 'second-factor':
        return {
          status: 403,
          body: errorBody('Second factor required', false, 'FORBIDDEN', {
            authStatus: session.authStatus,
          }),
        };
      case 'signed-in':
        return { status: 200, body: { message: 'ok', user: session.user } };
    }
  };
  // The app's session probe (decision 0195): always 200, the user carries the status.
  const sessionStatus = (): Reply => {
    switch (session.kind) {
      case 'signed-out':
        return { body: { signedIn: false, user: null } };
      case 'second-factor':
        return {
          body: { signedIn: true, user: makeUser({ role: null, authStatus: session.authStatus }) },
        };
      case 'signed-in':
        return { body: { signedIn: true, user: session.user } };
    }
  };
  return {
    'GET /api/auth/session': sessionStatus,
    'GET /api/auth/login/': currentUser,
    'GET /api/auth/user': currentUser,
    'POST /api/auth/refreshToken': () =>
      session.kind === 'signed-out'
        ? { status: 401, body: errorBody('Not signed in', false, 'UNAUTHENTICATED') }
        : { body: { message: 'Token refreshed' } },
    'GET /api/appVersion': { body: { version: '1.4.2' } },
    'GET /api/csrf-token': { body: { csrfToken: 'csrf-1' } },
    'POST /api/auth/logout': { status: 204 },
    ...humanCheckHandlers(),
  };
}

/**
 * The human check in ALTCHA mode with real, tiny challenges (solved in a few ms), so the
 * client's solver runs for real.
 */
export function humanCheckHandlers(): Record<string, Handler | Reply> {
  return {
    'GET /api/humanCheck/config': { body: { provider: 'altcha', siteKey: null } },
    'GET /api/humanCheck/challenge': async () => ({
      body: await createChallenge({ hmacKey: 'test-key', maxnumber: 50 }),
    }),
  };
}

/** Decodes a `recaptchaResponse` ALTCHA payload (base64 JSON). */
export function decodeAltchaPayload(token: unknown): Record<string, unknown> {
  return JSON.parse(atob(String(token))) as Record<string, unknown>;
}
