import { useMutation } from '@tanstack/react-query';
import { forgotPasswordInputSchema, type ForgotPasswordInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** What the form collects; the human-check token is added on submit. */
export const forgotPasswordFormSchema = forgotPasswordInputSchema.omit({ recaptchaResponse: true });
export type ForgotPasswordFormInput = Omit<ForgotPasswordInput, 'recaptchaResponse'>;

/** `POST /api/auth/forgotPassword`: the same answer whether or not the email exists. */
export function forgotPassword(input: ForgotPasswordInput): Promise<{ message?: string }> {
  return api.post<{ message?: string }>('/auth/forgotPassword', input);
}

export function useForgotPassword() {
  return useMutation({ mutationFn: forgotPassword });
}
