import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** `POST /api/auth/resetPasswordValidation`: is the emailed reset key still good? */
export function validateResetToken(token: string): Promise<{ userId?: unknown }> {
  return api.post<{ userId?: unknown }>('/auth/resetPasswordValidation', { token });
}

/** Validates once per key; nothing runs without one. */
export function useValidateResetToken(token: string | null) {
  return useQuery({
    queryKey: ['reset-password-validation', token],
    queryFn: () => validateResetToken(token ?? ''),
    enabled: Boolean(token),
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
  });
}
