import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decryptSecret, encryptSecret, hashToken, randomDigits, randomToken } from './crypto';

const key = randomBytes(32).toString('base64');

describe('crypto', () => {
  it('round-trips a secret and never repeats a ciphertext', () => {
    const sealed = encryptSecret('refresh-token-value', key);
    expect(decryptSecret(sealed, key)).toBe('refresh-token-value');
    expect(encryptSecret('refresh-token-value', key)).not.toBe(sealed);
    expect(sealed).not.toContain('refresh-token-value');
  });

  it('fails on a flipped bit or the wrong key', () => {
    const sealed = encryptSecret('secret', key);
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3]!, 'base64url');
    body[0]! ^= 1;
    parts[3] = body.toString('base64url');
    expect(() => decryptSecret(parts.join('.'), key)).toThrow();
    expect(() => decryptSecret(sealed, randomBytes(32).toString('base64'))).toThrow();
  });

  it('makes 256-bit tokens, stable hashes and unbiased digit codes', () => {
    expect(Buffer.from(randomToken(), 'base64url')).toHaveLength(32);
    expect(hashToken('a')).toBe(hashToken('a'));
    expect(hashToken('a')).toMatch(/^[0-9a-f]{64}$/);
    const code = randomDigits(6);
    expect(code).toMatch(/^\d{6}$/);
  });
});
