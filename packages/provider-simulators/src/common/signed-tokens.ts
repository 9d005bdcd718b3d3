/**
 * Self-verifying tokens. Access tokens are HS256 JWTs and refresh tokens are signed opaque
 * strings, both keyed by a per-simulator secret, so tokens a TrialPulse database stored in
 * an earlier run keep working after the simulator restarts (demo mode depends on that).
 * Only rotation, revocation and forced expiry live in memory, and a restart forgets them.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { SimulatedClock } from './clock';
import { secretMatches } from './oauth';
import type { TokenFilter } from './types';

export type TokenStoreOptions = {
  secret: string;
  clock: SimulatedClock;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** Extra claims for the access token JWT (issuer, audience, subject, scope shape). */
  accessClaims?: (grant: GrantInfo) => Record<string, unknown>;
};

export type GrantInfo = {
  grantId: string;
  accountId: string;
  clientId: string;
  scope: string;
};

export type IssuedTokens = {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  grant: GrantInfo;
};

export type AccessCheck =
  | { ok: true; grant: GrantInfo; claims: Record<string, unknown> }
  | { ok: false; reason: 'invalid' | 'expired' | 'revoked' };

export type RefreshCheck = { ok: true; grant: GrantInfo } | { ok: false; reason: string };

export type TokenStore = ReturnType<typeof createTokenStore>;

export function createTokenStore(options: TokenStoreOptions) {
  const { secret, clock } = options;
  const usedRefreshIds = new Set<string>();
  const revokedGrants = new Set<string>();
  const forcedExpired = new Set<string>();
  /** Grants and access-token ids issued by this process, per account, for the control API. */
  const grantsByAccount = new Map<string, Set<string>>();
  const accessIdsByAccount = new Map<string, Map<string, string>>();

  const nowSeconds = () => Math.floor(clock.nowMs() / 1000);

  function issue(grantInput: Omit<GrantInfo, 'grantId'> & { grantId?: string }): IssuedTokens {
    const grant: GrantInfo = { ...grantInput, grantId: grantInput.grantId ?? randomUUID() };
    const iat = nowSeconds();
    const jti = randomUUID();
    const accessToken = signJwt(
      {
        ...options.accessClaims?.(grant),
        iat,
        nbf: iat,
        exp: iat + options.accessTokenTtlSeconds,
        jti,
        client_id: grant.clientId,
        sim_account: grant.accountId,
        sim_grant: grant.grantId,
        sim_scope: grant.scope,
      },
      secret,
    );
    const refreshToken = signOpaque(
      {
        t: 'refresh',
        id: randomUUID(),
        a: grant.accountId,
        c: grant.clientId,
        g: grant.grantId,
        s: grant.scope,
        exp: iat + options.refreshTokenTtlSeconds,
      },
      secret,
    );
    addTo(grantsByAccount, grant.accountId, grant.grantId);
    let accessIds = accessIdsByAccount.get(grant.accountId);
    if (!accessIds) accessIdsByAccount.set(grant.accountId, (accessIds = new Map()));
    accessIds.set(jti, grant.grantId);
    return { accessToken, refreshToken, expiresIn: options.accessTokenTtlSeconds, grant };
  }

  function checkAccess(token: string): AccessCheck {
    const claims = verifyJwt(token, secret);
    if (!claims || typeof claims.sim_account !== 'string' || typeof claims.sim_grant !== 'string') {
      return { ok: false, reason: 'invalid' };
    }
    const grant: GrantInfo = {
      grantId: claims.sim_grant,
      accountId: claims.sim_account,
      clientId: String(claims.client_id),
      scope: String(claims.sim_scope ?? ''),
    };
    if (revokedGrants.has(grant.grantId)) return { ok: false, reason: 'revoked' };
    if (forcedExpired.has(String(claims.jti)) || Number(claims.exp) <= nowSeconds()) {
      return { ok: false, reason: 'expired' };
    }
    addTo(grantsByAccount, grant.accountId, grant.grantId);
    return { ok: true, grant, claims };
  }

  /** Validates a refresh token for a client; with `consume` it can never be used again. */
  function checkRefresh(token: string, clientId: string, consume: boolean): RefreshCheck {
    const payload = verifyOpaque(token, secret);
    if (!payload || payload.t !== 'refresh') return { ok: false, reason: 'unknown refresh token' };
    const id = String(payload.id);
    if (payload.c !== clientId)
      return { ok: false, reason: 'refresh token was issued to another client' };
    if (revokedGrants.has(String(payload.g)))
      return { ok: false, reason: 'refresh token was revoked' };
    if (usedRefreshIds.has(id)) return { ok: false, reason: 'refresh token was already used' };
    if (Number(payload.exp) <= nowSeconds()) return { ok: false, reason: 'refresh token expired' };
    if (consume) usedRefreshIds.add(id);
    return {
      ok: true,
      grant: {
        grantId: String(payload.g),
        accountId: String(payload.a),
        clientId: String(payload.c),
        scope: String(payload.s),
      },
    };
  }

  /** Revokes the grant behind an access or refresh token; returns false for foreign tokens. */
  function revokeToken(token: string, clientId: string): 'revoked' | 'unknown' | 'wrong_client' {
    const refresh = verifyOpaque(token, secret);
    if (refresh && refresh.t === 'refresh') {
      if (refresh.c !== clientId) return 'wrong_client';
      revokedGrants.add(String(refresh.g));
      return 'revoked';
    }
    const access = verifyJwt(token, secret);
    if (access && typeof access.sim_grant === 'string') {
      if (access.client_id !== clientId) return 'wrong_client';
      revokedGrants.add(access.sim_grant);
      return 'revoked';
    }
    return 'unknown';
  }

  /** Makes matching access tokens (issued by this process) expired now; returns how many. */
  function expireAccessTokens(filter: TokenFilter = {}): number {
    const only = filter.token === undefined ? undefined : tokenIds(filter.token);
    if (only === null) return 0;
    let count = 0;
    for (const [account, ids] of accessIdsByAccount) {
      if (filter.accountId !== undefined && account !== filter.accountId) continue;
      for (const [id, grantId] of ids) {
        if (forcedExpired.has(id) || revokedGrants.has(grantId)) continue;
        if (only && only.jti !== id && only.grantId !== grantId) continue;
        forcedExpired.add(id);
        count++;
      }
    }
    return count;
  }

  /** Revokes matching grants (all their tokens); returns how many were live. */
  function revokeGrants(filter: TokenFilter = {}): number {
    if (filter.token !== undefined) {
      const ids = tokenIds(filter.token);
      if (!ids || revokedGrants.has(ids.grantId)) return 0;
      revokedGrants.add(ids.grantId);
      return 1;
    }
    let count = 0;
    for (const [account, ids] of grantsByAccount) {
      if (filter.accountId !== undefined && account !== filter.accountId) continue;
      for (const id of ids) {
        if (!revokedGrants.has(id)) count++;
        revokedGrants.add(id);
      }
    }
    return count;
  }

  /** The grant (and for access tokens the token id) behind one of our tokens. */
  function tokenIds(token: string): { grantId: string; jti?: string } | null {
    const refresh = verifyOpaque(token, secret);
    if (refresh && refresh.t === 'refresh') return { grantId: String(refresh.g) };
    const access = verifyJwt(token, secret);
    if (access && typeof access.sim_grant === 'string')
      return { grantId: access.sim_grant, jti: String(access.jti) };
    return null;
  }

  /** Accounts with at least one grant that is not revoked (known to this process). */
  function linkedAccounts(): string[] {
    return [...grantsByAccount]
      .filter(([, ids]) => [...ids].some((id) => !revokedGrants.has(id)))
      .map(([account]) => account);
  }

  function reset() {
    usedRefreshIds.clear();
    revokedGrants.clear();
    forcedExpired.clear();
    grantsByAccount.clear();
    accessIdsByAccount.clear();
  }

  return {
    issue,
    checkAccess,
    checkRefresh,
    revokeToken,
    expireAccessTokens,
    revokeGrants,
    linkedAccounts,
    reset,
  };
}

export function signJwt(payload: Record<string, unknown>, secret: string): string {
  const header = base64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const body = base64url(JSON.stringify(payload));
  return `${header}.${body}.${hmac(`${header}.${body}`, secret)}`;
}

export function verifyJwt(token: string, secret: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [header, body, signature] = parts as [string, string, string];
  if (!secretMatches(hmac(`${header}.${body}`, secret), signature)) return null;
  return parseJson(body);
}

function signOpaque(payload: Record<string, unknown>, secret: string): string {
  const body = base64url(JSON.stringify(payload));
  return `${body}.${hmac(body, secret)}`;
}

function verifyOpaque(token: string, secret: string): Record<string, unknown> | null {
  const parts = token.split('.');
  if (parts.length !== 2) return null;
  const [body, signature] = parts as [string, string];
  if (!secretMatches(hmac(body, secret), signature)) return null;
  return parseJson(body);
}

function parseJson(segment: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function base64url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

function hmac(data: string, secret: string): string {
  return createHmac('sha256', secret).update(data).digest('base64url');
}

function addTo(map: Map<string, Set<string>>, key: string, value: string) {
  let set = map.get(key);
  if (!set) map.set(key, (set = new Set()));
  set.add(value);
}
