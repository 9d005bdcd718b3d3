import { createHmac } from 'node:crypto';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { SECURITY } from '@trialpulse/shared';
import { accessTokenKey, signAccessToken, verifyAccessToken } from './session-tokens';

const key = accessTokenKey('a'.repeat(64));
const otherKey = accessTokenKey('b'.repeat(64));
const now = new Date('2026-11-25T01:00:00Z');
const claims = { userId: 42, sessionId: 'session-1', tokenVersion: 3 };
const seconds = Math.floor(now.getTime() / 1000);

/** A token as jose signs it, with the fields given (ours unless changed). */
function token(
  options: {
    header?: Record<string, unknown>;
    payload?: Record<string, unknown>;
    signWith?: typeof key;
  } = {},
) {
  return new SignJWT({
    sid: 'session-1',
    tv: 3,
    sub: '42',
    iss: 'trialpulse',
    aud: 'trialpulse-api',
    iat: seconds,
    exp: seconds + 60,
    ...options.payload,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT', ...options.header })
    .sign(options.signWith ?? key);
}

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('verifyAccessToken (decision 0044)', () => {
  it('answers the claims of a token signed with the key, until it expires', async () => {
    const signed = await signAccessToken(claims, key, now);
    expect(await verifyAccessToken(signed, key, now)).toEqual(claims);
    const last = new Date(now.getTime() + (SECURITY.accessTokenTtlSeconds - 1) * 1000);
    expect(await verifyAccessToken(signed, key, last)).toEqual(claims);
    const expired = new Date(now.getTime() + SECURITY.accessTokenTtlSeconds * 1000);
    expect(await verifyAccessToken(signed, key, expired)).toBeNull();
  });

  it('refuses another key, a changed payload or header, and a signature not in canonical base64url', async () => {
    const signed = await signAccessToken(claims, key, now);
    expect(await verifyAccessToken(signed, otherKey, now)).toBeNull();
    const [header, , signature] = signed.split('.');
    const forged = encode({
      sid: 'session-1',
      tv: 3,
      sub: '1',
      iss: 'trialpulse',
      aud: 'trialpulse-api',
      exp: seconds + 60,
    });
    expect(await verifyAccessToken(`${header}.${forged}.${signature}`, key, now)).toBeNull();
    expect(
      await verifyAccessToken(
        `${encode({ alg: 'HS256' })}.${signed.split('.')[1]}.${signature}`,
        key,
        now,
      ),
    ).toBeNull();
    expect(await verifyAccessToken(`${signed}A`, key, now)).toBeNull();
    expect(await verifyAccessToken(`${signed}.`, key, now)).toBeNull();
    expect(await verifyAccessToken('not a token', key, now)).toBeNull();
  });

  it('refuses alg none, other issuers and audiences, a missing expiry, a future nbf, malformed claims', async () => {
    const unsigned = `${encode({ alg: 'none' })}.${encode({ sid: 'session-1', tv: 3, sub: '42', iss: 'trialpulse', aud: 'trialpulse-api', exp: seconds + 60 })}.`;
    expect(await verifyAccessToken(unsigned, key, now)).toBeNull();
    expect(await verifyAccessToken(await token(), key, now)).toEqual(claims);
    expect(
      await verifyAccessToken(
        await token({ payload: { aud: ['other', 'trialpulse-api'] } }),
        key,
        now,
      ),
    ).toEqual(claims);
    expect(
      await verifyAccessToken(await token({ payload: { iss: 'other' } }), key, now),
    ).toBeNull();
    expect(
      await verifyAccessToken(await token({ payload: { aud: 'other' } }), key, now),
    ).toBeNull();
    expect(
      await verifyAccessToken(await token({ payload: { exp: undefined } }), key, now),
    ).toBeNull();
    expect(
      await verifyAccessToken(await token({ payload: { nbf: seconds + 10 } }), key, now),
    ).toBeNull();
    expect(await verifyAccessToken(await token({ payload: { nbf: seconds } }), key, now)).toEqual(
      claims,
    );
    expect(await verifyAccessToken(await token({ payload: { sub: 'x' } }), key, now)).toBeNull();
    expect(await verifyAccessToken(await token({ payload: { tv: '3' } }), key, now)).toBeNull();
    // A critical header extension (jose would not sign it), signed by hand with the right key.
    const critical = `${encode({ alg: 'HS256', crit: ['exp'], exp: 1 })}.${(await token()).split('.')[1]}`;
    const mac = createHmac('sha256', key).update(critical).digest('base64url');
    expect(await verifyAccessToken(`${critical}.${mac}`, key, now)).toBeNull();
    // The same signed by hand without it passes: the refusal above is the header's.
    const plain = `${encode({ alg: 'HS256', typ: 'JWT' })}.${(await token()).split('.')[1]}`;
    const plainMac = createHmac('sha256', key).update(plain).digest('base64url');
    expect(await verifyAccessToken(`${plain}.${plainMac}`, key, now)).toEqual(claims);
  });
});
