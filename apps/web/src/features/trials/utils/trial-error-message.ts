import { TRIAL_MESSAGES } from '@trialpulse/shared';
import { isApiError, userMessage } from '@/lib/api-client';

/**
 * The text shown for a failed trial call (access spec §8: "errors prefixed Error:"): the
 * inactive-team message, the server's message when displayable, otherwise `fallback`.
 */
export function trialErrorMessage(error: unknown, fallback: string): string {
  if (isApiError(error) && error.reason === 'TEAM_INACTIVE') {
    return `Error: ${TRIAL_MESSAGES.teamInactive}`;
  }
  return `Error: ${userMessage(error, fallback)}`;
}
