import { createPublicKey } from 'node:crypto';
import {
  calculateJwkThumbprint,
  errors,
  exportJWK,
  importJWK,
  importSPKI,
  jwtVerify,
  type JWK,
  type JWTPayload,
} from 'jose';
import {
  BACKEND_ASSERTION_ALGORITHMS,
  BACKEND_CLIENT_MESSAGES,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import type { BackendKeyFormat, StoredPublicJwk } from '../../db/schema';

type Algorithm = (typeof BACKEND_ASSERTION_ALGORITHMS)[number];

/** The keys a client's assertions are checked against, as registration stores them. */
export type ParsedKeys = { format: BackendKeyFormat; jwks: { keys: StoredPublicJwk[] } };

/** A key the Admin pasted that cannot be registered; `message` is the form's. */
export class KeyProblem extends Error {}

const MAX_KEYS = 10;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * Reads the public key(s) an Admin registers: a JWKS (or one JWK) or a PEM SPKI public key.
 * Keeps the keys that can verify an RS384 or ES384 assertion (RSA ≥ 2048 bits; EC P-384),
 * each with its `alg` and a `kid` (a PEM key's is its RFC 7638 thumbprint), each checked by
 * importing it with jose. Throws KeyProblem with the form's message: not a key, a private
 * key, or no usable key.
 */
export async function parsePublicKeys(text: string): Promise<ParsedKeys> {
  const trimmed = text.trim();
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(trimmed))
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyPrivate);
  if (trimmed.startsWith('{')) return { format: 'jwks', jwks: { keys: await parseJwks(trimmed) } };
  if (trimmed.startsWith('-----BEGIN PUBLIC KEY-----'))
    return { format: 'pem', jwks: { keys: [await parseSpki(trimmed)] } };
  throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
}

async function parseJwks(text: string): Promise<StoredPublicJwk[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
  const record = parsed as Record<string, unknown>;
  const candidates = Array.isArray(record.keys) ? (record.keys as unknown[]) : [record];
  if (candidates.length === 0 || candidates.length > MAX_KEYS * 5)
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyUnusable);
  const usable: StoredPublicJwk[] = [];
  for (const candidate of candidates) {
    if (typeof candidate !== 'object' || candidate === null || Array.isArray(candidate))
      throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
    const jwk = candidate as Record<string, unknown>;
    if (PRIVATE_MEMBERS.some((member) => member in jwk))
      throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyPrivate);
    const alg = signingAlgorithmOf(jwk);
    if (!alg) continue;
    try {
      const key = await importJWK({ ...(jwk as JWK), ext: true }, alg);
      if (key instanceof Uint8Array) continue;
      if (jwk.kty === 'RSA' && !rsaLongEnough(await exportJWK(key))) continue;
    } catch {
      throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
    }
    const kid =
      typeof jwk.kid === 'string' && jwk.kid !== ''
        ? jwk.kid
        : await calculateJwkThumbprint(jwk as JWK);
    usable.push({ ...jwk, kty: jwk.kty as string, alg, kid });
  }
  if (usable.length === 0 || usable.length > MAX_KEYS)
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyUnusable);
  return usable;
}

/** RS384 for an RSA key, ES384 for an EC P-384 key; null for any other (or a key for another use). */
function signingAlgorithmOf(jwk: Record<string, unknown>): Algorithm | null {
  if (jwk.use !== undefined && jwk.use !== 'sig') return null;
  if (Array.isArray(jwk.key_ops) && !jwk.key_ops.includes('verify')) return null;
  const natural: Algorithm | null =
    jwk.kty === 'RSA' ? 'RS384' : jwk.kty === 'EC' && jwk.crv === 'P-384' ? 'ES384' : null;
  if (!natural) return null;
  if (jwk.alg !== undefined && jwk.alg !== natural) return null;
  return natural;
}

function rsaLongEnough(jwk: JWK): boolean {
  return typeof jwk.n === 'string' && Buffer.from(jwk.n, 'base64url').length * 8 >= 2048;
}

async function parseSpki(pem: string): Promise<StoredPublicJwk> {
  let alg: Algorithm | null;
  try {
    const key = createPublicKey({ key: pem, format: 'pem' });
    const details = key.asymmetricKeyDetails;
    alg =
      key.asymmetricKeyType === 'rsa' && (details?.modulusLength ?? 0) >= 2048
        ? 'RS384'
        : key.asymmetricKeyType === 'ec' && details?.namedCurve === 'secp384r1'
          ? 'ES384'
          : null;
  } catch {
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
  }
  if (!alg) throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyUnusable);
  try {
    const jwk = await exportJWK(await importSPKI(pem, alg, { extractable: true }));
    return { ...jwk, kty: jwk.kty!, alg, kid: await calculateJwkThumbprint(jwk) };
  } catch {
    throw new KeyProblem(BACKEND_CLIENT_MESSAGES.keyInvalid);
  }
}

/**
 * Verifies a client assertion against the client's registered keys: the header's `alg`
 * must be RS384 or ES384 and a key of that algorithm (with the header's `kid`, when it
 * names one) must verify the signature; jose checks `iss`, `sub`, `aud` and `exp` as the
 * options say. Answers the verified claims; throws jose's error for any failure (the last
 * signature failure, when every key was tried).
 */
export async function verifyAssertion(
  assertion: string,
  keys: readonly StoredPublicJwk[],
  header: { alg?: string; kid?: string },
  options: { clientId: string; audience: string; now: Date },
): Promise<JWTPayload> {
  const alg = header.alg;
  const candidates = keys.filter(
    (key) => key.alg === alg && (header.kid === undefined || key.kid === header.kid),
  );
  let failure: unknown = new Error('No registered key matches the assertion header (alg, kid).');
  for (const jwk of candidates) {
    try {
      const key = await importJWK(jwk as JWK, jwk.alg);
      const { payload } = await jwtVerify(assertion, key, {
        algorithms: [...BACKEND_ASSERTION_ALGORITHMS],
        issuer: options.clientId,
        subject: options.clientId,
        audience: options.audience,
        currentDate: options.now,
        requiredClaims: ['iss', 'sub', 'aud', 'exp', 'jti'],
      });
      return payload;
    } catch (error) {
      // Another key of the set may have signed it; any other failure (a claim) is final.
      if (!(error instanceof errors.JWSSignatureVerificationFailed)) throw error;
      failure = error;
    }
  }
  throw failure;
}
