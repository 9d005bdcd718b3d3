import { useMutation } from '@tanstack/react-query';
import type { LoginInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** `POST /api/Participants/login`; a 401 means wrong credentials here. */
export function participantLogin(input: LoginInput): Promise<{ message?: string }> {
  return api.post<{ message?: string }>('/Participants/login', input, { ignoreUnauthorized: true });
}

export function useParticipantLogin() {
  return useMutation({ mutationFn: participantLogin });
}
