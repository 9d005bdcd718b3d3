import { useMutation } from '@tanstack/react-query';
import { type z } from 'zod';
import { validateTotpInputSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

export { validateTotpInputSchema };
export type ValidateTotpInput = z.output<typeof validateTotpInputSchema>;

/**
 * `POST /api/auth/validateTOTP`: checks an authenticator or emailed code (`skipSFA`
 * remembers the device for 48 hours); on success the session becomes Authorized. A 401
 * here is a lockout, handled by the page rather than the expiry listeners.
 */
export async function validateTotp(input: ValidateTotpInput): Promise<SfaResult> {
  return readSfaResult(
    await api.post<unknown>('/auth/validateTOTP', input, { ignoreUnauthorized: true }),
  );
}

export function useValidateTotp() {
  return useMutation({ mutationFn: validateTotp });
}
