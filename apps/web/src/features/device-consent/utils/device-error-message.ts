import { DEVICE_ERROR_REASONS, DEVICE_MESSAGES, type DeviceBrandName } from '@trialpulse/shared';
import { isApiError, userMessage } from '@/lib/api-client';

/** The spec's text for a failed code exchange (device-data spec §8), per brand. */
const EXCHANGE_FAILED_MESSAGE: Record<DeviceBrandName, string> = {
  Fitbit: DEVICE_MESSAGES.unableToComplete,
  Omron: DEVICE_MESSAGES.authorizationFailed,
  Dexcom: DEVICE_MESSAGES.authorizationFailed,
};

/**
 * The text for a failed device call. The server never marks a 5xx displayable, so the
 * provider failures it answers with 502/503 are told apart by their `reason` (decision
 * 0019); otherwise the server's text when displayable, else `fallback`.
 */
export function deviceErrorMessage(
  error: unknown,
  brand: DeviceBrandName,
  fallback: string,
): string {
  if (isApiError(error)) {
    if (error.reason === DEVICE_ERROR_REASONS.exchangeFailed) return EXCHANGE_FAILED_MESSAGE[brand];
    if (error.reason === DEVICE_ERROR_REASONS.providerNotConfigured) {
      return DEVICE_MESSAGES.providerNotConfigured;
    }
  }
  return userMessage(error, fallback);
}
