import { EXPORT_MESSAGES } from '@trialpulse/shared';
import { isApiError, userMessage } from '@/lib/api-client';

/**
 * The §8 export texts for a failed call: network → unable to connect; 5xx → "Server error
 * ({status})…"; 404 → endpoint not found; 401/403 → authentication error; otherwise the
 * server's displayable message (the §5 texts) or `fallback`.
 */
export function exportErrorMessage(error: unknown, fallback: string = EXPORT_MESSAGES.createFailed): string {
  if (!isApiError(error)) return fallback;
  if (error.isNetworkError) return EXPORT_MESSAGES.unreachable;
  if (error.status >= 500) return EXPORT_MESSAGES.serverError(error.status);
  if (error.status === 401 || error.status === 403) return EXPORT_MESSAGES.authError;
  // A 404 with a body of ours is a missing trial/device/job; a bare 404 is a missing endpoint.
  if (error.status === 404 && !error.body) return EXPORT_MESSAGES.endpointNotFound;
  return userMessage(error, fallback);
}
