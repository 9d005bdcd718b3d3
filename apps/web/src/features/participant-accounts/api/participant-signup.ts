import { useMutation } from '@tanstack/react-query';
import { participantSignupInputSchema, type ParticipantSignupInput } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export { participantSignupInputSchema, type ParticipantSignupInput };

export type ParticipantSignupResponse = { success?: boolean; message?: string };

/** `POST /api/Participants/signup`: a participant's own account (never a staff account). */
export function participantSignup(
  input: ParticipantSignupInput,
): Promise<ParticipantSignupResponse> {
  return api.post<ParticipantSignupResponse>('/Participants/signup', input);
}

export function useParticipantSignup() {
  return useMutation({ mutationFn: participantSignup });
}
