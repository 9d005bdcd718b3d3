import { useMutation } from '@tanstack/react-query';
import { loginInputSchema, type LoginInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** What the form collects; the human-check token is added on submit. */
export const participantLoginFormSchema = loginInputSchema.omit({ recaptchaResponse: true });
export type ParticipantLoginFormInput = Omit<LoginInput, 'recaptchaResponse'>;

/** `POST /api/Participants/login`; a 401 means wrong credentials here. */
export function participantLogin(input: LoginInput): Promise<{ message?: string }> {
  return api.post<{ message?: string }>('/Participants/login', input, { ignoreUnauthorized: true });
}

export function useParticipantLogin() {
  return useMutation({ mutationFn: participantLogin });
}
