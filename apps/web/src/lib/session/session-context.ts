import { createContext, useContext } from 'react';
import type { GuardUser } from '@trialpulse/shared';
import type { Session, SessionUser } from './get-session';

export type SessionContextValue = {
  /** True until the first answer of `GET /api/auth/login/`. */
  isLoading: boolean;
  session: Session;
  /** The signed-in user record, when there is one. */
  user: SessionUser | null;
  guardUser: GuardUser | null;
  /** Asks the server again (after login, second factor, team change). */
  refresh: () => Promise<Session>;
  /** Replaces the session without asking the server (logout, a login answer). */
  setSession: (session: Session) => void;
};

export const SessionContext = createContext<SessionContextValue | null>(null);

export function useSession(): SessionContextValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession must be used inside <SessionProvider>');
  return value;
}
