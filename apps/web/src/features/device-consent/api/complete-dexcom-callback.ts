import { useMutation } from '@tanstack/react-query';
import { z } from 'zod';
import {
  callbackResponseSchema,
  dexcomCallbackSchema,
  emailSchema,
  type CallbackResponse,
  type DexcomCallbackRequest,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const completeDexcomCallbackInputSchema = dexcomCallbackSchema;
export type CompleteDexcomCallbackInput = DexcomCallbackRequest;

/** The Dexcom callback form: the participant's email, checked against the participant's. */
export const dexcomEmailInputSchema = z.object({ email: emailSchema });
export type DexcomEmailInput = z.infer<typeof dexcomEmailInputSchema>;

/**
 * Public `POST /api/dexcom-callback`: the code and state with the participant's email
 * (a mismatch is refused with a displayable message).
 */
export async function completeDexcomCallback(
  input: CompleteDexcomCallbackInput,
): Promise<CallbackResponse> {
  return callbackResponseSchema.parse(await api.post<unknown>('/dexcom-callback', input));
}

export function useCompleteDexcomCallback() {
  return useMutation({ mutationFn: completeDexcomCallback });
}
