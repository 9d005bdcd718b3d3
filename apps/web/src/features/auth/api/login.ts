import { useMutation } from '@tanstack/react-query';
import type { LoginInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type LoginResponse = { message?: string; user?: unknown };

/** `POST /api/auth/login`; a 401 here means wrong credentials, not an expired session. */
export function login(input: LoginInput): Promise<LoginResponse> {
  return api.post<LoginResponse>('/auth/login', input, { ignoreUnauthorized: true });
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
