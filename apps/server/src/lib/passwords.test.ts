import { describe, expect, it } from 'vitest';
import { argon2Hasher } from './passwords';

/**
 * The product's password hashes: argon2id at OWASP's parameters (19 MiB, two passes, one
 * lane). Test fixtures write cheaper hashes straight to the table (test/fixtures.ts), so the
 * product's own parameters are pinned here.
 */
describe('argon2Hasher', () => {
  it('hashes with argon2id at 19 MiB, two passes, one lane, and verifies only the right password', async () => {
    const stored = await argon2Hasher.hash('Correct#Horse9');
    expect(stored).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await argon2Hasher.verify(stored, 'Correct#Horse9')).toBe(true);
    expect(await argon2Hasher.verify(stored, 'Correct#Horse8')).toBe(false);
    expect(await argon2Hasher.verify('not a hash', 'Correct#Horse9')).toBe(false);
  });
});
