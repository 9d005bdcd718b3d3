import { api, isApiError } from '@/lib/api-client';
import { secondFactorFromError, sessionFromUser, type Session } from './get-session';

/**
 * Set right after a login: the tokens are brand new, so the session timers skip the
 * refresh they otherwise make when a session starts (spec §4).
 */
export const SKIP_REFRESH_ON_START_KEY = 'tp.skipRefreshOnStart';

export function markFreshSignIn(): void {
  try {
    localStorage.setItem(SKIP_REFRESH_ON_START_KEY, '1');
  } catch {
    // Storage blocked: one extra refresh is harmless.
  }
}

/** Reads and clears the flag, so the next page load refreshes again. */
export function consumeFreshSignIn(): boolean {
  try {
    const flagged = localStorage.getItem(SKIP_REFRESH_ON_START_KEY) !== null;
    localStorage.removeItem(SKIP_REFRESH_ON_START_KEY);
    return flagged;
  } catch {
    return false;
  }
}

/** `POST /api/auth/refreshToken`: rotates the session cookies; throws on 401. */
export function refreshToken(): Promise<void> {
  return api.post<void>('/auth/refreshToken', undefined, { ignoreUnauthorized: true });
}

export type PollResult =
  { kind: 'session'; session: Session } | { kind: 'expired' } | { kind: 'unknown' };

/**
 * One 30-second session poll (spec §4). Signed in: `GET /api/auth/user` — 200 → the user;
 * 403 with a pending second-factor status → that status; 401 → the session is over.
 * Half-way through the second factor: `GET /api/auth/session` instead (decision 0195 update),
 * because `/auth/user` answers that user 403 on every poll and the browser logs each one
 * as a failed request; its "not signed in" is the 401's "the session is over".
 * Anything else (network, 5xx, an unreadable answer) tells nothing.
 */
export async function pollSession(secondFactorPending: boolean): Promise<PollResult> {
  try {
    if (secondFactorPending) {
      const probe = await api.get<{ signedIn?: unknown; user?: unknown } | undefined>(
        '/auth/session',
        { ignoreUnauthorized: true },
      );
      if (probe?.signedIn === false) return { kind: 'expired' };
      const session = probe?.signedIn === true ? sessionFromUser(probe.user) : null;
      return session ? { kind: 'session', session } : { kind: 'unknown' };
    }
    const data = await api.get<{ user?: unknown } | undefined>('/auth/user', {
      ignoreUnauthorized: true,
    });
    const session = sessionFromUser(data?.user);
    return session ? { kind: 'session', session } : { kind: 'unknown' };
  } catch (error) {
    if (isApiError(error) && error.status === 401) return { kind: 'expired' };
    const session = secondFactorFromError(error);
    return session ? { kind: 'session', session } : { kind: 'unknown' };
  }
}
