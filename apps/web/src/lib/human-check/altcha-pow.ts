import { z } from 'zod';
import { solveChallenge as solveV2 } from 'altcha-lib';
import { deriveKey as derivePbkdf2 } from 'altcha-lib/algorithms/web/pbkdf2';
import { deriveKey as deriveSha } from 'altcha-lib/algorithms/web/sha';
import { solveChallenge as solveV1 } from 'altcha-lib/v1';

/**
 * Solves an ALTCHA proof-of-work challenge and encodes the payload the way the ALTCHA
 * widget does (base64 of JSON), so the server verifies it with `altcha-lib` as usual.
 * Both challenge formats are understood: v1 (`challenge`, `salt`, `maxnumber`) and v2
 * (`parameters` with a SHA or PBKDF2 key derivation). Runs in a worker or on the page.
 */
export async function solveAltchaPayload(challenge: unknown): Promise<string> {
  const v1 = v1ChallengeSchema.safeParse(challenge);
  if (v1.success) {
    const { algorithm, salt, signature, maxnumber } = v1.data;
    const solution = await solveV1(v1.data.challenge, salt, algorithm, maxnumber ?? 1e6).promise;
    if (!solution) throw new Error('The ALTCHA challenge has no solution in range.');
    return encode({
      algorithm,
      challenge: v1.data.challenge,
      number: solution.number,
      salt,
      signature,
      took: solution.took,
    });
  }

  const v2 = v2ChallengeSchema.safeParse(challenge);
  if (v2.success) {
    const { parameters, signature } = v2.data;
    const deriveKey = parameters.algorithm.startsWith('PBKDF2/') ? derivePbkdf2 : deriveSha;
    const solution = await solveV2({ challenge: { parameters, signature }, deriveKey });
    if (!solution) throw new Error('The ALTCHA challenge could not be solved in time.');
    return encode({ challenge: { parameters, signature }, solution });
  }

  throw new Error('The server sent an ALTCHA challenge this client does not understand.');
}

const v1ChallengeSchema = z.object({
  algorithm: z.enum(['SHA-1', 'SHA-256', 'SHA-512']),
  challenge: z.string().min(1),
  salt: z.string().min(1),
  signature: z.string().min(1),
  maxnumber: z.number().int().positive().optional(),
});

const v2ChallengeSchema = z.object({
  parameters: z.looseObject({
    algorithm: z.enum([
      'SHA-256',
      'SHA-384',
      'SHA-512',
      'PBKDF2/SHA-256',
      'PBKDF2/SHA-384',
      'PBKDF2/SHA-512',
    ]),
    nonce: z.string(),
    salt: z.string(),
    cost: z.number(),
    keyLength: z.number(),
    keyPrefix: z.string(),
  }),
  signature: z.string().optional(),
});

function encode(value: unknown): string {
  const bytes = new TextEncoder().encode(JSON.stringify(value));
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
