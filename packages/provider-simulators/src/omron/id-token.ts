/**
 * RS256 signing for Omron ID tokens. Omron's login is an IdentityServer-style OpenID
 * provider, and OIDC clients (oauth4webapi included) expect RS256 ID tokens and a JWKS.
 * One key pair per process, made on first use; clients fetch it from the JWKS route.
 */
import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { hexFromParts } from '../common/prng';

let keys: { privateKey: KeyObject; publicKey: KeyObject; kid: string } | undefined;

export function signIdToken(claims: Record<string, unknown>): string {
  const { privateKey, kid } = keyPair();
  const header = Buffer.from(JSON.stringify({ alg: 'RS256', kid, typ: 'JWT' })).toString(
    'base64url',
  );
  const body = Buffer.from(JSON.stringify(claims)).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${header}.${body}`), privateKey).toString(
    'base64url',
  );
  return `${header}.${body}.${signature}`;
}

export function jwks(): { keys: Array<Record<string, unknown>> } {
  const { publicKey, kid } = keyPair();
  return { keys: [{ ...publicKey.export({ format: 'jwk' }), kid, use: 'sig', alg: 'RS256' }] };
}

function keyPair() {
  if (!keys) {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const kid = hexFromParts(32, 'omron-sim', Date.now()).toUpperCase();
    keys = { privateKey, publicKey, kid };
  }
  return keys;
}
