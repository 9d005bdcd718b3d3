import { useMutation } from '@tanstack/react-query';
import { changePasswordInputSchema, type ChangePasswordInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export { changePasswordInputSchema, type ChangePasswordInput };

/**
 * `POST /api/auth/changePwdReq`. A 401 here may mean a wrong current password, so it is
 * shown on the form instead of ending the session (the session poll catches real expiry).
 */
export function changePassword(input: ChangePasswordInput): Promise<unknown> {
  return api.post<unknown>('/auth/changePwdReq', input, { ignoreUnauthorized: true });
}

export function useChangePassword() {
  return useMutation({ mutationFn: changePassword });
}
