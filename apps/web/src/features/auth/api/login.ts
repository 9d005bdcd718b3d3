import { useMutation } from '@tanstack/react-query';
import type { LoginInput } from '@trialpulse/shared';
import { api, resetCsrfToken } from '@/lib/api-client';

export type LoginResponse = { message?: string; user?: unknown };

/**
 * `POST /api/auth/login`; a 401 here means wrong credentials, not an expired session.
 * The anti-forgery token belongs to the session it was issued in, so the one fetched for
 * this call is dropped once a new session exists: the next write fetches its own instead
 * of being refused 403 first (a failed request in the browser console; decision 0195).
 */
export async function login(input: LoginInput): Promise<LoginResponse> {
  const answer = await api.post<LoginResponse>('/auth/login', input, { ignoreUnauthorized: true });
  resetCsrfToken();
  return answer;
}

export function useLogin() {
  return useMutation({ mutationFn: login });
}
