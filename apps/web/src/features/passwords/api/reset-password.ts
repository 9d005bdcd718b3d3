import { useMutation } from '@tanstack/react-query';
import { resetPasswordInputSchema, type ResetPasswordInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export { resetPasswordInputSchema, type ResetPasswordInput };

/** `POST /api/auth/resetPassword`: sets the new password; the key is spent. */
export function resetPassword(input: ResetPasswordInput): Promise<unknown> {
  return api.post<unknown>('/auth/resetPassword', input);
}

export function useResetPassword() {
  return useMutation({ mutationFn: resetPassword });
}
