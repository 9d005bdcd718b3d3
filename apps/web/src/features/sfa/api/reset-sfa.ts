import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

/**
 * `POST /api/auth/resetSFA`: removes the second factor of an Authorized session; the
 * session continues with status SFAIsNotSet, so a new authenticator must be set up.
 */
export async function resetSfa(): Promise<SfaResult> {
  return readSfaResult(await api.post<unknown>('/auth/resetSFA'));
}

export function useResetSfa() {
  return useMutation({ mutationFn: resetSfa });
}
