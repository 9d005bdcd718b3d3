import {
  createHash,
  createHmac,
  createSecretKey,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { SignJWT } from 'jose';
import { SECURITY } from '@trialpulse/shared';

/**
 * Cookies and the signed access token of a session. The access token is a short-lived
 * HS256 JWT naming the session and the user's token_version; the refresh token is an
 * opaque random value whose hash is stored (see auth.repository).
 */
export const ACCESS_COOKIE = 'tp_access';
export const REFRESH_COOKIE = 'tp_refresh';
/**
 * The session id, signed (APP_SECRET via @fastify/cookie), on every path: anti-forgery
 * tokens are bound to it (plugins/csrf.ts), so a token from another session is refused.
 */
export const SESSION_BINDING_COOKIE = 'tp_session';
/** "Remember this device for 48 hours": read at sign-in only, so it lives under /api/auth. */
export const REMEMBER_DEVICE_COOKIE = 'tp_remember';
const ISSUER = 'trialpulse';
const AUDIENCE = 'trialpulse-api';

export type AccessClaims = { userId: number; sessionId: string; tokenVersion: number };

/**
 * A key for access tokens only, derived from APP_SECRET so it is never reused elsewhere.
 * Imported once as a KeyObject: given raw bytes, jose imports the HMAC key again on every
 * sign and verify (about half the cost of a verify).
 */
export function accessTokenKey(appSecret: string): KeyObject {
  return createSecretKey(createHash('sha256').update(`access-token:${appSecret}`).digest());
}

export async function signAccessToken(
  claims: AccessClaims,
  key: KeyObject,
  now: Date,
): Promise<string> {
  const issuedAt = Math.floor(now.getTime() / 1000);
  return new SignJWT({ sid: claims.sessionId, tv: claims.tokenVersion })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(String(claims.userId))
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + SECURITY.accessTokenTtlSeconds)
    .sign(key);
}

/**
 * The claims of a valid token, or null for anything forged, expired or malformed.
 *
 * Checked on every authenticated request, so with node:crypto's HMAC in the request's own
 * turn rather than jose's `jwtVerify`, whose WebCrypto verify is an asynchronous job (about
 * 9 % of a list call's server CPU at trial scale, decision 0044). The checks are jose's
 * for these options, and stricter where our tokens allow: the header is exactly HS256
 * (no `crit`, no `b64`), the signature is the canonical base64url of the HMAC-SHA256 of
 * `header.payload` (compared in constant time), `iss` and `aud` are ours, `exp` is
 * required and must be after `now` (seconds), `nbf` when present not after it.
 */
export async function verifyAccessToken(
  token: string,
  key: KeyObject,
  now: Date,
): Promise<AccessClaims | null> {
  return verifyAccessTokenSync(token, key, now);
}

function verifyAccessTokenSync(token: string, key: KeyObject, now: Date): AccessClaims | null {
  const parts = token.split('.');
  if (parts.length !== 3) return null;
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const expected = createHmac('sha256', key).update(`${encodedHeader}.${encodedPayload}`).digest();
  const signature = Buffer.from(encodedSignature, 'base64url');
  if (signature.length !== expected.length || signature.toString('base64url') !== encodedSignature)
    return null;
  if (!timingSafeEqual(signature, expected)) return null;

  const header = decodeJsonPart(encodedHeader);
  if (!header || header.alg !== 'HS256' || 'crit' in header || 'b64' in header) return null;
  if (header.typ !== undefined && header.typ !== 'JWT') return null;
  const payload = decodeJsonPart(encodedPayload);
  if (!payload) return null;
  if (payload.iss !== ISSUER) return null;
  const audience = payload.aud;
  if (audience !== AUDIENCE && !(Array.isArray(audience) && audience.includes(AUDIENCE)))
    return null;
  const seconds = Math.floor(now.getTime() / 1000);
  const { exp, nbf, iat } = payload;
  if (!isNumericDate(exp) || exp <= seconds) return null;
  if (nbf !== undefined && (!isNumericDate(nbf) || nbf > seconds)) return null;
  if (iat !== undefined && !isNumericDate(iat)) return null;

  const userId = Number(payload.sub);
  if (typeof payload.sub !== 'string' || !Number.isInteger(userId)) return null;
  if (typeof payload.sid !== 'string' || typeof payload.tv !== 'number') return null;
  return { userId, sessionId: payload.sid, tokenVersion: payload.tv };
}

function isNumericDate(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A base64url JSON object of a token, or null. */
function decodeJsonPart(part: string): Record<string, unknown> | null {
  try {
    const bytes = Buffer.from(part, 'base64url');
    if (bytes.toString('base64url') !== part) return null;
    const value: unknown = JSON.parse(bytes.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/**
 * The session id an access token names, read without checking its signature: only to
 * compare with the session binding cookie (the auth guard verifies the token itself).
 */
export function unverifiedSessionId(token: string | undefined): string | null {
  if (!token) return null;
  try {
    const payload = JSON.parse(
      Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'),
    ) as { sid?: unknown };
    return typeof payload.sid === 'string' ? payload.sid : null;
  } catch {
    return null;
  }
}

export type CookieSettings = { secure: boolean };

export function setSessionCookies(
  reply: FastifyReply,
  tokens: {
    accessToken: string;
    refreshToken: string;
    refreshExpiresAt: Date;
    auth: { sessionId: string };
  },
  settings: CookieSettings,
) {
  const common = { httpOnly: true, sameSite: 'strict' as const, secure: settings.secure };
  reply.setCookie(SESSION_BINDING_COOKIE, tokens.auth.sessionId, {
    ...common,
    path: '/',
    signed: true,
    expires: tokens.refreshExpiresAt,
  });
  reply.setCookie(ACCESS_COOKIE, tokens.accessToken, {
    ...common,
    path: '/',
    maxAge: SECURITY.accessTokenTtlSeconds,
  });
  // The refresh token only ever travels to the auth endpoints.
  reply.setCookie(REFRESH_COOKIE, tokens.refreshToken, {
    ...common,
    path: '/api/auth',
    expires: tokens.refreshExpiresAt,
  });
}

export function clearSessionCookies(reply: FastifyReply, settings: CookieSettings) {
  const common = { httpOnly: true, sameSite: 'strict' as const, secure: settings.secure };
  reply.clearCookie(ACCESS_COOKIE, { ...common, path: '/' });
  reply.clearCookie(SESSION_BINDING_COOKIE, { ...common, path: '/' });
  reply.clearCookie(REFRESH_COOKIE, { ...common, path: '/api/auth' });
}
