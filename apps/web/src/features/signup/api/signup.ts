import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { signupInputSchema, type SignupInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * The registration form: the shared schema, except that the human-check token is fetched
 * on submit (after validation), so the form itself does not require it.
 */
export const signupFormSchema = signupInputSchema.safeExtend({ recaptchaResponse: z.string() });
export type SignupFormValues = z.input<typeof signupFormSchema>;

export type SignupRequest = SignupInput & { teamId: number; teamName: string; role: string };
export type SignupResponse = {
  success?: boolean;
  message?: string;
  data?: { redirectTo?: string };
};

/** `POST /api/users/signup`: creates the account with the invitation's role and team. */
export function signup(input: SignupRequest): Promise<SignupResponse> {
  return api.post<SignupResponse>('/users/signup', input);
}

export function useSignup() {
  return useMutation({ mutationFn: signup });
}
