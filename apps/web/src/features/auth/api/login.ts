import { useMutation } from '@tanstack/react-query';
import { loginInputSchema, type LoginInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** What the login form collects; the human-check token is added on submit. */
export const loginFormSchema = loginInputSchema.omit({ recaptchaResponse: true });
export type LoginFormInput = Omit<LoginInput, 'recaptchaResponse'>;

export type LoginResponse = { message?: string; user?: unknown };

/** `POST /api/auth/login`; a 401 here means wrong credentials, not an expired session. */
export function login(input: LoginInput): Promise<LoginResponse> {
  return api.post<LoginResponse>('/auth/login', input, { ignoreUnauthorized: true });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
