import { DEVICE_ERROR_REASONS } from '@trialpulse/shared';
import { isApiError } from '@/lib/api-client';

/**
 * How a failed data call is shown: a participant who has not linked the device is a state,
 * not a failure (info); anything else is an error.
 */
export function dataErrorSeverity(error: unknown): 'info' | 'error' {
  return isApiError(error) && error.reason === DEVICE_ERROR_REASONS.notAuthorized
    ? 'info'
    : 'error';
}
