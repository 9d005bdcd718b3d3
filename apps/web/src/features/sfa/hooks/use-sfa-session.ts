import { useCallback, useEffect } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { ERROR_REASONS, LOGIN_MESSAGES, PATHS } from '@trialpulse/shared';
import { isApiError, userMessage } from '@/lib/api-client';
import { useSession, useSignOut } from '@/lib/session';
import { SFA_TEXT } from '../sfa-constants';

/**
 * For a failed code: ends the session on a lockout (spec §4: the server message, or
 * "Account locked due to too many failed attempts") or an expired session and returns
 * null; otherwise returns the text for the page's error banner.
 */
export function useCodeFailure() {
  const signOut = useSignOut();
  return useCallback(
    async (error: unknown, fallback: string = SFA_TEXT.validateFailed): Promise<string | null> => {
      if (isApiError(error) && error.reason === ERROR_REASONS.accountLocked) {
        await signOut({ message: userMessage(error, LOGIN_MESSAGES.locked) });
        return null;
      }
      if (isApiError(error) && error.status === 401) {
        await signOut({ message: LOGIN_MESSAGES.sessionExpired });
        return null;
      }
      return userMessage(error, fallback);
    },
    [signOut],
  );
}

/**
 * Moves an Authorized session on from the code-entry pages, to `state.from` or home.
 * The pages only refresh the session after a status change; leaving from here, once the
 * new session has rendered, means the guard of the next page sees it too (navigating right
 * after the refresh raced the context update and bounced back). It also covers the page
 * being typed in, or remounted by the layout swap that the new session causes.
 * Returns whether the session is Authorized, so the page can skip its own calls.
 */
export function useLeaveWhenAuthorized(): boolean {
  const { session } = useSession();
  const navigate = useNavigate();
  const { state } = useLocation();
  const from = (state as { from?: unknown } | null)?.from;
  const authorized = session.status === 'signed-in';

  useEffect(() => {
    if (!authorized) return;
    void navigate(typeof from === 'string' && isAppPath(from) ? from : PATHS.home, {
      replace: true,
    });
  }, [authorized, from, navigate]);

  return authorized;
}

/** Only same-app paths that are not part of signing in. */
function isAppPath(path: string): boolean {
  return (
    path.startsWith('/') &&
    !path.startsWith('//') &&
    !path.startsWith(PATHS.login) &&
    !path.startsWith('/SFA')
  );
}
