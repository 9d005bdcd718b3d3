import { useMutation } from '@tanstack/react-query';
import { type z } from 'zod';
import { validateTotpInputSchema } from '@trialpulse/shared';
import { api, resetCsrfToken } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

export { validateTotpInputSchema };
export type ValidateTotpInput = z.output<typeof validateTotpInputSchema>;

/**
 * `POST /api/auth/validateTOTP`: checks an authenticator or emailed code (`skipSFA`
 * remembers the device for 48 hours); on success the session becomes Authorized. A 401
 * here is a lockout, handled by the page rather than the expiry listeners.
 * A valid code starts a new session, to which the anti-forgery token fetched for this call
 * does not belong: it is dropped, so the first write after the sign-in is not refused 403
 * and retried (decision 0195).
 */
export async function validateTotp(input: ValidateTotpInput): Promise<SfaResult> {
  try {
    return readSfaResult(
      await api.post<unknown>('/auth/validateTOTP', input, { ignoreUnauthorized: true }),
    );
  } finally {
    resetCsrfToken();
  }
}

export function useValidateTotp() {
  return useMutation({ mutationFn: validateTotp });
}
