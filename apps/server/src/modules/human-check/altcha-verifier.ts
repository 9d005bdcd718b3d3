import { createHmac, timingSafeEqual } from 'node:crypto';
import { createChallenge, extractParams } from 'altcha-lib/v1';
import type { Challenge } from 'altcha-lib/v1/types';
import { z } from 'zod';
import { systemClock, type Clock } from '../../lib/clock';
import type { HumanCheckVerifier } from './human-check.verifier';

/** How long a challenge may be solved and submitted. */
export const ALTCHA_CHALLENGE_TTL_MS = 10 * 60 * 1000;
const ALGORITHM = 'SHA-256';

export type AltchaVerifier = HumanCheckVerifier & {
  /** A signed challenge in the shape the `altcha` widget expects (PoW v1). */
  createChallenge(): Promise<Challenge>;
  /** Whether the token is shaped like an ALTCHA payload (base64 JSON), solved or not. */
  recognises(token: string): boolean;
};

/**
 * The self-hosted proof-of-work check (ALTCHA, PoW v1 via `altcha-lib/v1`). Challenges are
 * stateless: HMAC-signed with a key derived from APP_SECRET, carrying their expiry in the
 * salt. A solved payload is accepted once: its challenge is remembered until it expires,
 * in `replayStore` — the app gives the database store every web process shares
 * (human-check.repository); without one (unit tests) a memory of this process.
 */
export function createAltchaVerifier(options: {
  appSecret: string;
  /** Largest secret number (HUMAN_CHECK_DIFFICULTY): the average solve tries half of it. */
  difficulty: number;
  clock?: Clock;
  ttlMs?: number;
  replayStore?: ReplayStore;
}): AltchaVerifier {
  const clock = options.clock ?? systemClock;
  const ttlMs = options.ttlMs ?? ALTCHA_CHALLENGE_TTL_MS;
  const hmacKey = deriveAltchaHmacKey(options.appSecret);
  const spent = options.replayStore ?? createMemoryReplayStore();

  return {
    createChallenge: () =>
      createChallenge({
        algorithm: ALGORITHM,
        hmacKey,
        maxnumber: options.difficulty,
        expires: new Date(clock.now().getTime() + ttlMs),
      }),

    recognises: (token) => decodePayload(token) !== null,

    async verify(token) {
      const payload = decodePayload(token);
      if (!payload) return { ok: false, reason: 'malformed' };
      if (payload.algorithm !== ALGORITHM) return { ok: false, reason: 'algorithm' };

      const expires = Number(extractParams({ ...payload, algorithm: ALGORITHM }).expires);
      const now = clock.now().getTime();
      if (!Number.isSafeInteger(expires)) return { ok: false, reason: 'no-expiry' };
      if (expires * 1000 <= now) return { ok: false, reason: 'expired' };

      // Recompute the challenge and its signature from salt and number (altcha-lib), and
      // compare in constant time.
      const expected = await createChallenge({
        algorithm: ALGORITHM,
        hmacKey,
        number: payload.number,
        salt: payload.salt,
      });
      if (
        !sameText(expected.challenge, payload.challenge) ||
        !sameText(expected.signature, payload.signature)
      ) {
        return { ok: false, reason: 'invalid-solution' };
      }
      // The store records and answers in one step: two concurrent requests with the same
      // payload cannot both pass.
      if (!(await spent.consume(payload.challenge, expires * 1000, now)))
        return { ok: false, reason: 'replayed' };
      return { ok: true };
    },
  };
}

/** The ALTCHA HMAC key: derived from APP_SECRET, so APP_SECRET itself never signs anything here. */
export function deriveAltchaHmacKey(appSecret: string): string {
  return createHmac('sha256', appSecret).update('trialpulse/human-check/altcha/v1').digest('hex');
}

const payloadSchema = z.object({
  algorithm: z.string().max(20),
  challenge: z.string().regex(/^[0-9a-f]{64}$/),
  number: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  salt: z.string().min(1).max(200),
  signature: z.string().regex(/^[0-9a-f]{64}$/),
});
type Payload = z.infer<typeof payloadSchema>;

/** The widget submits base64(JSON{algorithm, challenge, number, salt, signature, …}). */
function decodePayload(token: string): Payload | null {
  if (token.length > 2_000 || !/^[A-Za-z0-9+/]+={0,2}$/.test(token)) return null;
  try {
    const parsed = payloadSchema.safeParse(
      JSON.parse(Buffer.from(token, 'base64').toString('utf8')),
    );
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Where spent challenges are remembered until they expire; `consume` is false for a replay. */
export type ReplayStore = {
  consume(challenge: string, expiresAtMs: number, nowMs: number): Promise<boolean>;
};

/**
 * Remembers spent challenges in this process until they expire (after which the expiry
 * check rejects them anyway). Bounded: past `maxEntries` the oldest are forgotten.
 */
function createMemoryReplayStore(maxEntries = 100_000, sweepEveryMs = 60_000): ReplayStore {
  const expiresAt = new Map<string, number>();
  let lastSweep = 0;
  return {
    async consume(key: string, expiresAtMs: number, now: number): Promise<boolean> {
      if (now - lastSweep >= sweepEveryMs) {
        lastSweep = now;
        for (const [entry, expiry] of expiresAt) if (expiry <= now) expiresAt.delete(entry);
      }
      const known = expiresAt.get(key);
      if (known !== undefined && known > now) return false;
      expiresAt.set(key, expiresAtMs);
      while (expiresAt.size > maxEntries) {
        const oldest = expiresAt.keys().next().value;
        if (oldest === undefined) break;
        expiresAt.delete(oldest);
      }
      return true;
    },
  };
}
