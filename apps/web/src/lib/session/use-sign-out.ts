import { useCallback } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { PATHS } from '@trialpulse/shared';
import { api, resetCsrfToken } from '@/lib/api-client';
import { forgetUserBrowserState } from '@/components/data-table/browser-storage';
import { SIGNED_OUT, sessionQueryKey } from './get-session';
import { useSession } from './session-context';

/** Answers that belong to no user. */
const KEPT_AFTER_SIGN_OUT = new Set<unknown>([sessionQueryKey[0], 'app-version']);

export function logout(): Promise<void> {
  return api.post<void>('/auth/logout', undefined, { ignoreUnauthorized: true });
}

/**
 * Ends the session: tells the server (a failure there changes nothing for the user),
 * forgets the CSRF token and every cached answer, and goes to /LoginPage, optionally
 * with a message the login page shows.
 */
export function useSignOut() {
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const { setSession } = useSession();

  return useCallback(
    async (options: { message?: string } = {}) => {
      try {
        await logout();
      } catch {
        // The server may already consider the session over; the client ends it regardless.
      }
      resetCsrfToken();
      forgetUserBrowserState();
      // On a protected page the guard also redirects to /LoginPage as soon as the session is
      // gone; the notice kept in the session lets either redirect carry the message.
      setSession(options.message ? { status: 'signed-out', notice: options.message } : SIGNED_OUT);
      await navigate(PATHS.login, {
        replace: true,
        state: options.message ? { message: options.message } : undefined,
      });
      queryClient.removeQueries({
        predicate: (query) => !KEPT_AFTER_SIGN_OUT.has(query.queryKey[0]),
      });
    },
    [navigate, queryClient, setSession],
  );
}
