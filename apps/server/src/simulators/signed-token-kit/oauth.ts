/**
 * OAuth 2.0 building blocks shared by the simulators: registered clients, redirect URI
 * checks, pending consent requests, authorization codes and PKCE.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { SimulatedClock } from '../common/clock';
import { LOOPBACK_REDIRECTS, redirectUriAllowed } from '../common/oauth';
import type { OAuthClientConfig } from '../common/types';

/** Parses `application/x-www-form-urlencoded` bodies into a flat string record (last value wins). */
export function registerFormParser(app: FastifyInstance) {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );
}

export function findClient(clients: OAuthClientConfig[], clientId: unknown) {
  return typeof clientId === 'string' ? clients.find((c) => c.clientId === clientId) : undefined;
}

/** Exact or wildcard match; without a list any http://localhost:* or http://127.0.0.1:* URI. */
export function isRedirectAllowed(client: OAuthClientConfig, redirectUri: string): boolean {
  return redirectUriAllowed(client.redirectUris ?? LOOPBACK_REDIRECTS, redirectUri);
}

/** Reads an `Authorization: Basic` header; 'malformed' when present but unreadable. */
export function readBasicAuth(
  header: string | undefined,
): { id: string; secret: string } | null | 'malformed' {
  if (!header) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match?.[1]) return 'malformed';
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return 'malformed';
  return {
    id: decodeURIComponent(decoded.slice(0, colon)),
    secret: decodeURIComponent(decoded.slice(colon + 1)),
  };
}

/** Builds the redirect back to the client with the given parameters added to its query. */
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

export type AuthorizationRequest = {
  clientId: string;
  redirectUri: string;
  scope: string;
  state?: string;
  nonce?: string;
  codeChallenge?: string;
  codeChallengeMethod?: 'S256' | 'plain';
};

export type AuthorizationCode = AuthorizationRequest & { accountId: string; expiresAt: number };

/**
 * Consent requests waiting for the Allow/Deny form, and issued authorization codes. Both
 * are short-lived and single-use, and both expire on the simulator clock.
 */
export function createAuthorizationStore(options: {
  clock: SimulatedClock;
  codeTtlSeconds: number;
}) {
  const pending = new Map<string, { request: AuthorizationRequest; expiresAt: number }>();
  const codes = new Map<string, AuthorizationCode>();
  const pendingTtlMs = 30 * 60_000;

  function prune() {
    const now = options.clock.nowMs();
    for (const [id, entry] of pending) if (entry.expiresAt <= now) pending.delete(id);
    for (const [code, entry] of codes) if (entry.expiresAt <= now - 3_600_000) codes.delete(code);
  }

  return {
    /** Stores a validated request; the consent form carries only the returned id. */
    addPending(request: AuthorizationRequest): string {
      prune();
      const id = randomUUID();
      pending.set(id, { request, expiresAt: options.clock.nowMs() + pendingTtlMs });
      return id;
    },
    takePending(id: string): AuthorizationRequest | undefined {
      const entry = pending.get(id);
      pending.delete(id);
      return entry && entry.expiresAt > options.clock.nowMs() ? entry.request : undefined;
    },
    issueCode(request: AuthorizationRequest, accountId: string): string {
      const code = randomBytes(32).toString('hex').toUpperCase();
      codes.set(code, {
        ...request,
        accountId,
        expiresAt: options.clock.nowMs() + options.codeTtlSeconds * 1000,
      });
      return code;
    },
    /** Single use: a code is gone after the first attempt, successful or not. */
    takeCode(code: string): AuthorizationCode | 'expired' | undefined {
      const entry = codes.get(code);
      codes.delete(code);
      if (!entry) return undefined;
      return entry.expiresAt > options.clock.nowMs() ? entry : 'expired';
    },
    reset() {
      pending.clear();
      codes.clear();
    },
  };
}

export type AuthorizationStore = ReturnType<typeof createAuthorizationStore>;

/** RFC 7636 verifier check. */
export function verifyPkce(
  verifier: string | undefined,
  challenge: string,
  method: 'S256' | 'plain',
): boolean {
  if (!verifier || !/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  const computed =
    method === 'S256' ? createHash('sha256').update(verifier).digest('base64url') : verifier;
  return computed === challenge;
}
