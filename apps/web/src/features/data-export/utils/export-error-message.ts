import { EXPORT_MESSAGES, TRIAL_MESSAGES } from '@trialpulse/shared';
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
  if (error.status === 404) {
    // The server answers a route it lacks with a displayable body too ("Route … not
    // found."), so a body alone does not tell a gone trial/device/job from a missing endpoint.
    const message = error.body?.displayToUser ? error.body.message : null;
    return message !== null && GONE_TEXTS.has(message) ? message : EXPORT_MESSAGES.endpointNotFound;
  }
  return userMessage(error, fallback);
}

/** The 404 texts of the export calls: the trial, device or job asked for is not (or no longer) there. */
const GONE_TEXTS: ReadonlySet<string> = new Set([TRIAL_MESSAGES.notFound, EXPORT_MESSAGES.deviceRequired, EXPORT_MESSAGES.jobNotFound]);
