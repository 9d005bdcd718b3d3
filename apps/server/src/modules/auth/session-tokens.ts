import { createHash, createSecretKey, type KeyObject } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { SignJWT, jwtVerify } from 'jose';
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

export async function signAccessToken(claims: AccessClaims, key: KeyObject, now: Date): Promise<string> {
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

/** The claims of a valid token, or null for anything forged, expired or malformed. */
export async function verifyAccessToken(token: string, key: KeyObject, now: Date): Promise<AccessClaims | null> {
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      issuer: ISSUER,
      audience: AUDIENCE,
      currentDate: now,
    });
    const userId = Number(payload.sub);
    if (!Number.isInteger(userId) || typeof payload.sid !== 'string' || typeof payload.tv !== 'number') return null;
    return { userId, sessionId: payload.sid, tokenVersion: payload.tv };
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
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sid?: unknown };
    return typeof payload.sid === 'string' ? payload.sid : null;
  } catch {
    return null;
  }
}

export type CookieSettings = { secure: boolean };

export function setSessionCookies(
  reply: FastifyReply,
  tokens: { accessToken: string; refreshToken: string; refreshExpiresAt: Date; auth: { sessionId: string } },
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
