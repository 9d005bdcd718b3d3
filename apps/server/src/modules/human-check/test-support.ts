import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';

type AltchaChallenge = {
  algorithm: string;
  challenge: string;
  maxnumber?: number;
  salt: string;
  signature: string;
};

/**
 * Tests: fetches a challenge from the app and solves it the way the altcha widget does,
 * returning the base64 payload to send as `recaptchaResponse`. Each payload is accepted
 * once. Solves with node:crypto's synchronous SHA-256: the same search as altcha-lib's
 * `solveChallenge`, ~20× faster than its WebCrypto loop (≈ 50 ms at the default difficulty).
 */
export async function solveHumanCheck(app: FastifyInstance): Promise<string> {
  const response = await app.inject({ method: 'GET', url: '/api/humanCheck/challenge' });
  if (response.statusCode !== 200)
    throw new Error(`challenge request failed: ${response.statusCode}`);
  return solveAltchaChallenge(response.json<AltchaChallenge>());
}

/** Solves one ALTCHA (PoW v1, SHA-256) challenge; throws when it has no solution. */
export function solveAltchaChallenge(challenge: AltchaChallenge): string {
  if (challenge.algorithm !== 'SHA-256')
    throw new Error(`unsupported algorithm ${challenge.algorithm}`);
  const max = challenge.maxnumber ?? 1_000_000;
  for (let number = 0; number <= max; number += 1) {
    const digest = createHash('sha256')
      .update(challenge.salt + number)
      .digest('hex');
    if (digest === challenge.challenge) {
      const payload = {
        algorithm: challenge.algorithm,
        challenge: challenge.challenge,
        number,
        salt: challenge.salt,
        signature: challenge.signature,
      };
      return Buffer.from(JSON.stringify(payload)).toString('base64');
    }
  }
  throw new Error('challenge has no solution');
}
