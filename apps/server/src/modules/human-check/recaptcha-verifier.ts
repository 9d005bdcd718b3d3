import { z } from 'zod';
import type { HumanCheckVerifier } from './human-check.verifier';

export const RECAPTCHA_TIMEOUT_MS = 5_000;

const siteverifyAnswerSchema = z.object({
  success: z.boolean(),
  score: z.number().optional(),
  action: z.string().optional(),
  'error-codes': z.array(z.string()).optional(),
});

/**
 * reCAPTCHA v3: asks Google's siteverify endpoint (RECAPTCHA_VERIFY_URL) about the token.
 * Passes only when the answer says success, the score reaches `minScore` and the action is
 * the one the form used. A slow (> timeoutMs), failing or unreadable answer is a failure:
 * the check is never skipped.
 */
export function createRecaptchaVerifier(options: {
  secretKey: string;
  verifyUrl: string;
  minScore: number;
  timeoutMs?: number;
}): HumanCheckVerifier {
  const timeoutMs = options.timeoutMs ?? RECAPTCHA_TIMEOUT_MS;
  return {
    async verify(token, context) {
      let answer: z.infer<typeof siteverifyAnswerSchema>;
      try {
        const response = await fetch(options.verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            secret: options.secretKey,
            response: token,
            remoteip: context.ip,
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        if (!response.ok) return { ok: false, reason: `siteverify-http-${response.status}` };
        const parsed = siteverifyAnswerSchema.safeParse(await response.json().catch(() => null));
        if (!parsed.success) return { ok: false, reason: 'siteverify-unreadable' };
        answer = parsed.data;
      } catch (error) {
        const timedOut = error instanceof Error && error.name === 'TimeoutError';
        return { ok: false, reason: timedOut ? 'siteverify-timeout' : 'siteverify-unreachable' };
      }
      if (!answer.success) return { ok: false, reason: 'not-successful' };
      if (answer.score === undefined || answer.score < options.minScore)
        return { ok: false, reason: 'low-score' };
      if (answer.action !== context.action) return { ok: false, reason: 'wrong-action' };
      return { ok: true };
    },
  };
}
