import {
  callbackResponseSchema,
  fitbitCallbackSchema,
  type CallbackResponse,
  type FitbitCallbackRequest,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const completeFitbitCallbackInputSchema = fitbitCallbackSchema;
export type CompleteFitbitCallbackInput = FitbitCallbackRequest;

/**
 * Public `POST /api/fitbit-callback`: hands the server the code (or the provider's error)
 * with the single-use state. Posted once on page load, so there is no mutation hook (see
 * `useCallbackResult`).
 */
export async function completeFitbitCallback(
  input: CompleteFitbitCallbackInput,
): Promise<CallbackResponse> {
  return callbackResponseSchema.parse(await api.post<unknown>('/fitbit-callback', input));
}
