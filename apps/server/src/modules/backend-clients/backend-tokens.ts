import { createHash, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { BACKEND_TOKEN_LIFETIME_SECONDS } from '@trialpulse/shared/backend-clients/backend-clients.schemas';

/**
 * Access tokens of backend clients (decision 0241): a five-minute HS256 JWT signed with a key
 * derived from APP_SECRET for this purpose only, naming the client, its team and the
 * granted scopes. Self-contained, so no table of tokens; the guard still reads the client's
 * row on every request, so a revoked client's token stops at the next call.
 */
const ISSUER = 'trialpulse';
const AUDIENCE = 'trialpulse-fhir';
const TYPE = 'at+jwt';

export type BackendTokenClaims = { clientId: string; teamId: number; scopes: string[] };

/** The signing key of backend access tokens (never the session tokens' key). */
export function backendTokenKey(appSecret: string): KeyObject {
  return createSecretKey(createHash('sha256').update(`backend-access-token:${appSecret}`).digest());
}

export async function signBackendToken(
  claims: BackendTokenClaims,
  key: KeyObject,
  now: Date,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ team: claims.teamId, scope: claims.scopes.join(' ') })
    .setProtectedHeader({ alg: 'HS256', typ: TYPE })
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setSubject(claims.clientId)
    .setJti(randomBytes(16).toString('base64url'))
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + BACKEND_TOKEN_LIFETIME_SECONDS)
    .sign(key);
}

/** The claims of a valid token; null for anything forged, expired, malformed or not ours. */
export async function verifyBackendToken(
  token: string,
  key: KeyObject,
  now: Date,
): Promise<BackendTokenClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      typ: TYPE,
      currentDate: now,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (typeof payload.team !== 'number' || typeof payload.scope !== 'string') return null;
    return {
      clientId: payload.sub!,
      teamId: payload.team,
      scopes: payload.scope.split(' ').filter(Boolean),
    };
  } catch {
    return null;
  }
}
