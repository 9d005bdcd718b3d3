import { useMutation } from '@tanstack/react-query';
import { type z } from 'zod';
import { verifyTotpInputSchema } from '@trialpulse/shared';
import { api, resetCsrfToken } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

export { verifyTotpInputSchema };
export type VerifyTotpInput = z.infer<typeof verifyTotpInputSchema>;

/**
 * `POST /api/auth/verifyTOTP`: confirms the authenticator set-up with a first code; on
 * success the server ends the session. A 401 here is a lockout (ACCOUNT_LOCKED), which the
 * page turns into a sign-out with the lock message, so the expiry listeners are skipped.
 * Either way the session this call's anti-forgery token belongs to has ended: it is dropped.
 */
export async function verifyTotp(input: VerifyTotpInput): Promise<SfaResult> {
  try {
    return readSfaResult(
      await api.post<unknown>('/auth/verifyTOTP', input, { ignoreUnauthorized: true }),
    );
  } finally {
    resetCsrfToken();
  }
}

export function useVerifyTotp() {
  return useMutation({ mutationFn: verifyTotp });
}
