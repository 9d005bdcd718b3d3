import { useMutation } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

/** `POST /api/recaptchaVer3Verify`: the human check the password change runs first. */
export function verifyHumanCheck(recaptchaResponse: string): Promise<unknown> {
  return api.post<unknown>('/recaptchaVer3Verify', { recaptchaResponse });
}

export function useVerifyHumanCheck() {
  return useMutation({ mutationFn: verifyHumanCheck });
}
