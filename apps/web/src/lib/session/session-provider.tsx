import { useCallback, useMemo, type ReactNode } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { SIGNED_OUT, getSession, sessionQueryKey, toGuardUser, type Session } from './get-session';
import { SessionContext, type SessionContextValue } from './session-context';

/**
 * Holds the session for the whole app. The session lives in the query cache under
 * `sessionQueryKey`, so any code may refresh it; timers (token refresh, session poll) are
 * hooks mounted here next to the query.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const query = useQuery({
    queryKey: sessionQueryKey,
    queryFn: ({ signal }) => getSession(signal),
    staleTime: Infinity,
    gcTime: Infinity,
    retry: false,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });

  const refresh = useCallback(
    () =>
      queryClient.fetchQuery({
        queryKey: sessionQueryKey,
        queryFn: ({ signal }) => getSession(signal),
        staleTime: 0,
      }),
    [queryClient],
  );

  const setSession = useCallback(
    (session: Session) => queryClient.setQueryData(sessionQueryKey, session),
    [queryClient],
  );

  const session = query.data ?? SIGNED_OUT;
  const value = useMemo<SessionContextValue>(
    () => ({
      isLoading: query.isPending,
      session,
      user: session.status === 'signed-in' ? session.user : null,
      guardUser: toGuardUser(session),
      refresh,
      setSession,
    }),
    [query.isPending, session, refresh, setSession],
  );

  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}
