import { useMutation } from '@tanstack/react-query';
import { api, resetCsrfToken } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

/**
 * `POST /api/auth/resetSFA`: removes the second factor of an Authorized session; the
 * session continues with status SFAIsNotSet, so a new authenticator must be set up.
 * The server issues a new session for it, so this call's anti-forgery token is dropped.
 */
export async function resetSfa(): Promise<SfaResult> {
  try {
    return readSfaResult(await api.post<unknown>('/auth/resetSFA'));
  } finally {
    resetCsrfToken();
  }
}

export function useResetSfa() {
  return useMutation({ mutationFn: resetSfa });
}
