import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { readSfaResult, type SfaResult } from './sfa-result';

/**
 * `POST /api/auth/generateSendEmailTOTP`: emails a sign-in code (the session moves to
 * SFAValidateEmailCodeNeeded). A session already Authorized answers
 * `{success: false, message: 'SFA already validated'}`.
 */
export async function generateSendEmailTotp(): Promise<SfaResult> {
  return readSfaResult(await api.post<unknown>('/auth/generateSendEmailTOTP'));
}

export function useGenerateSendEmailTotp() {
  return useMutation({ mutationFn: generateSendEmailTotp });
}
