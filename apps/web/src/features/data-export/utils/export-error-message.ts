import { ERROR_REASONS, EXPORT_MESSAGES } from '@trialpulse/shared';
import { isApiError, userMessage } from '@/lib/api-client';

/**
 * The §8 export texts for a failed call: network → unable to connect; 5xx → "Server error
 * ({status})…"; 404 for a missing endpoint → endpoint not found; 401/403 → authentication
 * error; otherwise the server's displayable message (the §5 texts, and a gone trial, device
 * or job) or `fallback`.
 */
export function exportErrorMessage(
  error: unknown,
  fallback: string = EXPORT_MESSAGES.createFailed,
): string {
  if (!isApiError(error)) return fallback;
  if (error.isNetworkError) return EXPORT_MESSAGES.unreachable;
  if (error.status >= 500) return EXPORT_MESSAGES.serverError(error.status);
  if (error.status === 401 || error.status === 403) return EXPORT_MESSAGES.authError;
  if (error.status === 404) {
    // The server marks a route it lacks with its own reason; any other 404 with a
    // displayable message is a real route's "no such record" (a gone trial, device or job).
    // A 404 with nothing to show (a proxy's, no body) is taken as a missing endpoint too.
    if (error.reason === ERROR_REASONS.routeNotFound) return EXPORT_MESSAGES.endpointNotFound;
    return error.body?.displayToUser ? error.body.message : EXPORT_MESSAGES.endpointNotFound;
  }
  return userMessage(error, fallback);
}
