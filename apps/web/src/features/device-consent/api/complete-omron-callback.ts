import {
  callbackResponseSchema,
  omronCallbackSchema,
  type CallbackResponse,
  type OmronCallbackRequest,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const completeOmronCallbackInputSchema = omronCallbackSchema;
export type CompleteOmronCallbackInput = OmronCallbackRequest;

/**
 * Public `POST /api/omron-callback`: hands the server the code (or the provider's error)
 * with the single-use state. Posted once on page load (see `useCallbackResult`).
 */
export async function completeOmronCallback(
  input: CompleteOmronCallbackInput,
): Promise<CallbackResponse> {
  return callbackResponseSchema.parse(await api.post<unknown>('/omron-callback', input));
}
