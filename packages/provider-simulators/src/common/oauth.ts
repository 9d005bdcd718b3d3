import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { SimulatedClock } from './clock';
import type { OAuthClientConfig, TokenFilter } from './types';

/**
 * OAuth 2.0 building blocks shared by the simulators: client registry, pending consent
 * requests, authorization codes, grants and tokens, PKCE and client authentication. The
 * provider rules (lifetimes, rotation, error bodies) live in each simulator; this store only
 * keeps records and answers questions about them.
 */

export const LOOPBACK_REDIRECTS = ['http://localhost:*', 'http://127.0.0.1:*'];

export interface RegisteredClient {
  clientId: string;
  clientSecret: string | null;
  redirectUris: string[];
}

export interface PendingAuthorization {
  id: string;
  clientId: string;
  redirectUri: string;
  /** Whether redirect_uri was in the request (Fitbit allows leaving it out). */
  redirectUriProvided: boolean;
  scopes: string[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  /** Provider-specific extras, e.g. Google access_type and prompt. */
  params: Record<string, string>;
  createdAt: number;
}

export interface AuthorizationCode {
  code: string;
  clientId: string;
  accountId: string;
  redirectUri: string;
  redirectUriProvided: boolean;
  scopes: string[];
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  params: Record<string, string>;
  expiresAt: number;
  /** Grant created by the exchange; a replayed code revokes it (RFC 6749 §4.1.2). */
  grantId: string | null;
}

export interface Grant {
  id: string;
  clientId: string;
  accountId: string;
  scopes: string[];
  createdAt: number;
  revoked: boolean;
}

export interface AccessTokenRecord {
  token: string;
  grantId: string;
  issuedAt: number;
  expiresAt: number;
  /** Set the first time the token is used on a data endpoint. */
  firstUsedAt: number | null;
  /** The refresh token whose use created this token (Fitbit grace window). */
  parentRefreshToken: string | null;
}

export interface RefreshTokenRecord {
  token: string;
  grantId: string;
  issuedAt: number;
  lastUsedAt: number;
  /** Absolute expiry, or null for none. */
  expiresAt: number | null;
  /** Set when the token was exchanged (single-use providers). */
  consumedAt: number | null;
  /** The identical earlier answer to replay during the Fitbit grace window. */
  replay: { fingerprint: string; body: Record<string, unknown> } | null;
  parentRefreshToken: string | null;
  /** Explicitly invalidated (e.g. a newer authorization replaced it). */
  invalidated: boolean;
}

export type TokenState = 'valid' | 'expired' | 'revoked';

/** In-memory OAuth state of one simulator. */
export class OAuthStore {
  private readonly clients = new Map<string, RegisteredClient>();
  private pending = new Map<string, PendingAuthorization>();
  private codes = new Map<string, AuthorizationCode>();
  private grants = new Map<string, Grant>();
  private accessTokens = new Map<string, AccessTokenRecord>();
  private refreshTokens = new Map<string, RefreshTokenRecord>();

  constructor(
    private readonly clock: SimulatedClock,
    clients: OAuthClientConfig[],
  ) {
    for (const client of clients) {
      this.clients.set(client.clientId, {
        clientId: client.clientId,
        clientSecret: client.clientSecret ?? null,
        redirectUris: client.redirectUris ?? LOOPBACK_REDIRECTS,
      });
    }
  }

  client(clientId: string | undefined): RegisteredClient | undefined {
    return clientId === undefined ? undefined : this.clients.get(clientId);
  }

  savePending(request: Omit<PendingAuthorization, 'id' | 'createdAt'>): PendingAuthorization {
    const record = { ...request, id: randomToken(16), createdAt: this.clock.nowMs() };
    this.pending.set(record.id, record);
    return record;
  }

  /** A pending consent request, if it exists and is younger than an hour. */
  pendingRequest(id: string | undefined): PendingAuthorization | undefined {
    const record = id === undefined ? undefined : this.pending.get(id);
    if (!record || this.clock.nowMs() - record.createdAt > 3_600_000) return undefined;
    return record;
  }

  deletePending(id: string): void {
    this.pending.delete(id);
  }

  issueCode(code: string, record: Omit<AuthorizationCode, 'code' | 'grantId'>): AuthorizationCode {
    const saved = { ...record, code, grantId: null };
    this.codes.set(code, saved);
    return saved;
  }

  code(code: string | undefined): AuthorizationCode | undefined {
    return code === undefined ? undefined : this.codes.get(code);
  }

  createGrant(clientId: string, accountId: string, scopes: string[]): Grant {
    const grant = {
      id: randomToken(12),
      clientId,
      accountId,
      scopes,
      createdAt: this.clock.nowMs(),
      revoked: false,
    };
    this.grants.set(grant.id, grant);
    return grant;
  }

  grant(id: string): Grant | undefined {
    return this.grants.get(id);
  }

  /** Grants of this account and client that are still live. */
  liveGrants(clientId: string, accountId: string): Grant[] {
    return [...this.grants.values()].filter(
      (g) => !g.revoked && g.clientId === clientId && g.accountId === accountId,
    );
  }

  /** True when the account ever granted this client access (even if since revoked). */
  everGranted(clientId: string, accountId: string): boolean {
    return [...this.grants.values()].some(
      (g) => g.clientId === clientId && g.accountId === accountId,
    );
  }

  addAccessToken(record: Omit<AccessTokenRecord, 'firstUsedAt'>): AccessTokenRecord {
    const saved = { ...record, firstUsedAt: null };
    this.accessTokens.set(record.token, saved);
    return saved;
  }

  addRefreshToken(
    record: Omit<RefreshTokenRecord, 'lastUsedAt' | 'consumedAt' | 'replay' | 'invalidated'>,
  ): RefreshTokenRecord {
    const saved = {
      ...record,
      lastUsedAt: record.issuedAt,
      consumedAt: null,
      replay: null,
      invalidated: false,
    };
    this.refreshTokens.set(record.token, saved);
    return saved;
  }

  accessToken(
    token: string,
  ): { record: AccessTokenRecord; grant: Grant; state: TokenState } | undefined {
    const record = this.accessTokens.get(token);
    const grant = record && this.grants.get(record.grantId);
    if (!record || !grant) return undefined;
    const state: TokenState = grant.revoked
      ? 'revoked'
      : record.expiresAt <= this.clock.nowMs()
        ? 'expired'
        : 'valid';
    return { record, grant, state };
  }

  refreshToken(
    token: string | undefined,
  ): { record: RefreshTokenRecord; grant: Grant } | undefined {
    const record = token === undefined ? undefined : this.refreshTokens.get(token);
    const grant = record && this.grants.get(record.grantId);
    return record && grant ? { record, grant } : undefined;
  }

  refreshTokensOfGrant(grantId: string): RefreshTokenRecord[] {
    return [...this.refreshTokens.values()].filter((record) => record.grantId === grantId);
  }

  revokeGrant(grantId: string): void {
    const grant = this.grants.get(grantId);
    if (grant) grant.revoked = true;
  }

  /** Revokes every grant matching the filter; returns how many were live. */
  revokeMatching(filter: TokenFilter = {}): number {
    let count = 0;
    for (const grant of this.matchingGrants(filter)) {
      if (!grant.revoked) count++;
      grant.revoked = true;
    }
    return count;
  }

  /** Expires every live access token matching the filter; returns how many. */
  expireMatching(filter: TokenFilter = {}): number {
    const now = this.clock.nowMs();
    const grants = new Set(this.matchingGrants(filter).map((grant) => grant.id));
    let count = 0;
    for (const record of this.accessTokens.values()) {
      if (!grants.has(record.grantId) || record.expiresAt <= now) continue;
      if (
        filter.token !== undefined &&
        filter.token !== record.token &&
        !this.refreshTokens.has(filter.token)
      )
        continue;
      record.expiresAt = now;
      count++;
    }
    return count;
  }

  /** Accounts with a live grant (webhook notifications go to these only). */
  linkedAccountIds(): string[] {
    return [
      ...new Set(
        [...this.grants.values()].filter((grant) => !grant.revoked).map((grant) => grant.accountId),
      ),
    ];
  }

  reset(): void {
    this.pending = new Map();
    this.codes = new Map();
    this.grants = new Map();
    this.accessTokens = new Map();
    this.refreshTokens = new Map();
  }

  private matchingGrants(filter: TokenFilter): Grant[] {
    let grantId: string | undefined;
    if (filter.token !== undefined) {
      grantId =
        this.accessTokens.get(filter.token)?.grantId ??
        this.refreshTokens.get(filter.token)?.grantId;
      if (grantId === undefined) return [];
    }
    return [...this.grants.values()].filter(
      (grant) =>
        (grantId === undefined || grant.id === grantId) &&
        (filter.accountId === undefined || grant.accountId === filter.accountId),
    );
  }
}

/** Client credentials as presented on a token or revoke request. */
export type ClientCredentials =
  | { method: 'basic'; clientId: string; clientSecret: string }
  | { method: 'post'; clientId: string; clientSecret: string | undefined }
  | { method: 'none' }
  | { method: 'malformed'; reason: string };

/**
 * Reads client authentication from `Authorization: Basic` (RFC 6749 §2.3.1: form-encoded id
 * and secret) or from `client_id` / `client_secret` in the form body.
 */
export function readClientCredentials(
  authorization: string | undefined,
  form: FormBody,
): ClientCredentials {
  if (authorization !== undefined && /^basic\s/i.test(authorization)) {
    const decoded = Buffer.from(authorization.replace(/^basic\s+/i, '').trim(), 'base64').toString(
      'utf8',
    );
    const colon = decoded.indexOf(':');
    if (colon < 0) return { method: 'malformed', reason: 'Invalid authorization header format.' };
    try {
      return {
        method: 'basic',
        clientId: formDecode(decoded.slice(0, colon)),
        clientSecret: formDecode(decoded.slice(colon + 1)),
      };
    } catch {
      return { method: 'malformed', reason: 'Invalid authorization header format.' };
    }
  }
  const clientId = formField(form, 'client_id');
  if (clientId !== undefined)
    return { method: 'post', clientId, clientSecret: formField(form, 'client_secret') };
  return { method: 'none' };
}

/** Constant-time secret comparison. */
export function secretMatches(expected: string, actual: string | undefined): boolean {
  if (actual === undefined) return false;
  const a = Buffer.from(expected);
  const b = Buffer.from(actual);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** RFC 7636: verifier is 43–128 characters of [A-Za-z0-9-._~]. */
export function isValidPkceValue(value: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(value);
}

/** Checks a code_verifier against the stored challenge (S256 or plain). */
export function pkceMatches(
  verifier: string,
  challenge: string,
  method: string | undefined,
): boolean {
  if (!isValidPkceValue(verifier)) return false;
  const computed =
    method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed === challenge;
}

/** The registered client with this id (a query or form value of any type). */
export function findClient(
  clients: OAuthClientConfig[],
  clientId: unknown,
): OAuthClientConfig | undefined {
  return typeof clientId === 'string' ? clients.find((c) => c.clientId === clientId) : undefined;
}

/** Exact or wildcard match; without a list any http://localhost:* or http://127.0.0.1:* URI. */
export function isRedirectAllowed(client: OAuthClientConfig, redirectUri: string): boolean {
  return redirectUriAllowed(client.redirectUris ?? LOOPBACK_REDIRECTS, redirectUri);
}

/** The redirect back to the client with the given parameters added to its query. */
export function redirectWith(
  redirectUri: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.toString();
}

/** Whether a redirect URI is allowed by the client's list (exact, or `*` wildcards). */
export function redirectUriAllowed(patterns: string[], uri: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return false;
  }
  if (parsed.hash) return false;
  return patterns.some((pattern) => {
    if (!pattern.includes('*')) return pattern === uri;
    const regex = new RegExp(`^${pattern.split('*').map(escapeRegExp).join('.*')}$`);
    if (!regex.test(uri)) return false;
    // The wildcard must not smuggle in another host (e.g. http://localhost:1@evil.test).
    const patternHost = new URL(pattern.replaceAll('*', '1')).hostname;
    return parsed.hostname === patternHost && parsed.username === '' && parsed.password === '';
  });
}

/** A random URL-safe token. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

export function randomHex(bytes = 32): string {
  return randomBytes(bytes).toString('hex');
}

/** `application/x-www-form-urlencoded` body: every field as a list (checkboxes repeat). */
export type FormBody = Record<string, string[]>;

export function parseFormBody(text: string): FormBody {
  const body: FormBody = {};
  for (const [key, value] of new URLSearchParams(text)) (body[key] ??= []).push(value);
  return body;
}

/**
 * The form as one string per field, the last value winning (as most servers read a repeated
 * field); for providers whose forms never repeat a field. A JSON object body is read the
 * same way; anything else gives an empty record.
 */
export function formValues(body: unknown): Record<string, string | undefined> {
  if (!body || typeof body !== 'object') return {};
  const values: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(body)) {
    values[key] = Array.isArray(value)
      ? (value.at(-1) as string | undefined)
      : typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
        ? String(value)
        : undefined;
  }
  return values;
}

/** First value of a form field. */
export function formField(form: FormBody | undefined, name: string): string | undefined {
  return form?.[name]?.[0];
}

function formDecode(value: string): string {
  return decodeURIComponent(value.replaceAll('+', ' '));
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
