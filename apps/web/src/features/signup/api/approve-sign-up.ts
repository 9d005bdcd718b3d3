import { useMutation } from '@tanstack/react-query';
import { approveSignUpInputSchema, type ApproveSignUpInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export { approveSignUpInputSchema, type ApproveSignUpInput };

/** `POST /api/userSignUpPermission/approveSignUp`: emails a single-use sign-up link. */
export function approveSignUp(input: ApproveSignUpInput): Promise<{ message?: string }> {
  return api.post<{ message?: string }>('/userSignUpPermission/approveSignUp', input);
}

export function useApproveSignUp() {
  return useMutation({ mutationFn: approveSignUp });
}
