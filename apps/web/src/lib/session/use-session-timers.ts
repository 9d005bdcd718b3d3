import { useEffect, useRef } from 'react';
import { LIMITS, LOGIN_MESSAGES } from '@trialpulse/shared';
import { isApiError, onUnauthorized } from '@/lib/api-client';
import { useSession } from './session-context';
import { consumeFreshSignIn, pollSession, refreshToken } from './session-timers';
import { useSignOut } from './use-sign-out';

/** What counts as "the user was active" between two token refreshes. */
const ACTIVITY_EVENTS = ['mousemove', 'mousedown', 'keydown', 'touchstart', 'wheel', 'scroll'];

/**
 * The session lifecycle of spec §4 while a user (also one half-way through the second
 * factor) is present: refresh the tokens at start unless a login just happened, then
 * every 12 minutes if the user was active meanwhile; poll the session every 30 s
 * (`GET /auth/user`, or `GET /auth/session` while the second factor is due: decision 0195 update).
 * A 401 from the poll or any other call, or a failed refresh, logs out with the
 * session-expired message. Mount once, inside the router.
 */
export function useSessionTimers(): void {
  const { session, setSession } = useSession();
  const signOut = useSignOut();
  const present = session.status !== 'signed-out';
  const secondFactorPending = session.status === 'second-factor';

  // Read by the poll when it fires; the timers themselves live as long as the user is present.
  const secondFactorPendingRef = useRef(secondFactorPending);
  useEffect(() => {
    secondFactorPendingRef.current = secondFactorPending;
  }, [secondFactorPending]);

  const expireRef = useRef<() => void>(() => undefined);
  const endingRef = useRef(false);
  const startHandledRef = useRef(false);

  useEffect(() => {
    expireRef.current = () => {
      if (endingRef.current) return;
      endingRef.current = true;
      void signOut({ message: LOGIN_MESSAGES.sessionExpired }).finally(() => {
        endingRef.current = false;
      });
    };
  }, [signOut]);

  useEffect(() => {
    if (!present) {
      startHandledRef.current = false;
      return;
    }
    let stopped = false;
    let active = false;
    const markActive = () => {
      active = true;
    };
    const onVisibility = () => {
      if (document.visibilityState === 'visible') active = true;
    };

    const refresh = async () => {
      try {
        await refreshToken();
      } catch (error) {
        // No answer at all (offline) is not a failed refresh; the next poll tells.
        if (!stopped && isApiError(error) && !error.isNetworkError) expireRef.current();
      }
    };
    const poll = async () => {
      const result = await pollSession(secondFactorPendingRef.current);
      if (stopped) return;
      if (result.kind === 'expired') expireRef.current();
      else if (result.kind === 'session') setSession(result.session);
    };

    // Refs survive StrictMode's effect replay, so the start refresh runs once per session.
    if (!startHandledRef.current) {
      startHandledRef.current = true;
      if (!consumeFreshSignIn()) void refresh();
    }

    for (const name of ACTIVITY_EVENTS) {
      window.addEventListener(name, markActive, { passive: true, capture: true });
    }
    document.addEventListener('visibilitychange', onVisibility);
    const refreshTimer = setInterval(() => {
      if (!active) return;
      active = false;
      void refresh();
    }, LIMITS.tokenRefreshIntervalMs);
    const pollTimer = setInterval(() => void poll(), LIMITS.sessionPollIntervalMs);
    const unsubscribe = onUnauthorized(() => {
      if (!stopped) expireRef.current();
    });

    return () => {
      stopped = true;
      clearInterval(refreshTimer);
      clearInterval(pollTimer);
      unsubscribe();
      for (const name of ACTIVITY_EVENTS) {
        window.removeEventListener(name, markActive, { capture: true });
      }
      document.removeEventListener('visibilitychange', onVisibility);
    };
  }, [present, setSession]);
}
