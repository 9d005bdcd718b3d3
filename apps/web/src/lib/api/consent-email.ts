import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import type { ConsentEmailRequest } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

const consentEmailResponseSchema = z.object({ message: z.string().optional() });

/**
 * `POST /api/participantConsentEmail` {participantId, brand} (staff): emails the participant
 * a consent link for Fitbit or Omron. Used by the participant page and the consent page.
 */
export async function sendConsentEmail(input: ConsentEmailRequest): Promise<{ message?: string }> {
  return consentEmailResponseSchema.parse(
    await api.post<unknown>('/participantConsentEmail', input),
  );
}

export function useSendConsentEmail() {
  return useMutation({ mutationFn: sendConsentEmail });
}
