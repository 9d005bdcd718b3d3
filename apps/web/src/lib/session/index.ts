export {
  SIGNED_OUT,
  displayName,
  getSession,
  isFullySignedIn,
  secondFactorFromError,
  sessionFromUser,
  sessionQueryKey,
  sessionUserSchema,
  toGuardUser,
  type Session,
  type SessionUser,
} from './get-session';
export { useSession, type SessionContextValue } from './session-context';
export { useCan } from './use-can';
export { SessionProvider } from './session-provider';
export {
  SKIP_REFRESH_ON_START_KEY,
  markFreshSignIn,
  pollSession,
  refreshToken,
} from './session-timers';
export { useSessionTimers } from './use-session-timers';
export { logout, useSignOut } from './use-sign-out';
