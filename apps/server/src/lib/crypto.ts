import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/** A URL-safe random token with `bytes` of entropy (default 32 = 256 bit). */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** SHA-256 (hex) of a token: what the database keeps instead of the token itself. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** A random numeric code of `digits` digits (emailed second-factor codes). */
export function randomDigits(digits: number): string {
  let code = '';
  while (code.length < digits) {
    const byte = randomBytes(1)[0]!;
    if (byte < 250) code += String(byte % 10); // 250 = 25 × 10: no modulo bias
  }
  return code;
}

/**
 * AES-256-GCM with a random 96-bit nonce; the output `v1.<nonce>.<tag>.<ciphertext>`
 * (base64url parts) names its version so the key or scheme can be rotated later. A flipped
 * bit anywhere makes `decryptSecret` throw.
 */
export function encryptSecret(plaintext: string, keyBase64: string): string {
  const key = Buffer.from(keyBase64, 'base64');
  const nonce = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', nonce, cipher.getAuthTag(), ciphertext]
    .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
    .join('.');
}

export function decryptSecret(sealed: string, keyBase64: string): string {
  const [version, nonce, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !nonce || !tag || ciphertext === undefined)
    throw new Error('unknown secret format');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(keyBase64, 'base64'),
    Buffer.from(nonce, 'base64url'),
  );
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([
    decipher.update(Buffer.from(ciphertext, 'base64url')),
    decipher.final(),
  ]).toString('utf8');
}
