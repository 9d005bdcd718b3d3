import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import type { ConsentEmailRequest } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

const consentEmailResponseSchema = z.object({ message: z.string().optional() });

/**
 * `POST /api/participantConsentEmail` {participantId, brand} (Sys_Admin, Admin, User):
 * emails the participant a consent link for Fitbit or Omron.
 */
export async function sendConsentEmail(input: ConsentEmailRequest): Promise<{ message?: string }> {
  return consentEmailResponseSchema.parse(
    await api.post<unknown>('/participantConsentEmail', input),
  );
}

export function useSendConsentEmail() {
  return useMutation({ mutationFn: sendConsentEmail });
}
