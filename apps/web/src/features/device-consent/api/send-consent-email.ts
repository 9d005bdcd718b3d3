import { useMutation } from '@tanstack/react-query';
import { consentEmailRequestSchema, type ConsentEmailRequest } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const sendConsentEmailInputSchema = consentEmailRequestSchema;
export type SendConsentEmailInput = ConsentEmailRequest;

/** Staff `POST /api/participantConsentEmail`: emails the participant a consent link. */
export function sendConsentEmail(input: SendConsentEmailInput): Promise<unknown> {
  return api.post<unknown>('/participantConsentEmail', input);
}

export function useSendConsentEmail() {
  return useMutation({ mutationFn: sendConsentEmail });
}
