import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import { api } from '@/lib/api-client';

export const loginInputSchema = z.object({
  username: z.string().trim().min(1, 'Username is required'),
  password: z.string().min(1, 'Password is required'),
});
export type LoginInput = z.infer<typeof loginInputSchema>;

export type LoginResponse = {
  message?: string;
  user?: { role?: string | null; authStatus?: string | null } & Record<string, unknown>;
};

/** Until the human check lands (accounts issue) the spec's fallback token is sent. */
export const FALLBACK_HUMAN_CHECK_TOKEN = 'fallback-token';

export function login(input: LoginInput): Promise<LoginResponse> {
  return api.post<LoginResponse>('/auth/login', {
    username: input.username,
    password: input.password,
    recaptchaResponse: FALLBACK_HUMAN_CHECK_TOKEN,
  });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
