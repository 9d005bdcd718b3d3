export {
  SIGNED_OUT,
  displayName,
  getSession,
  isFullySignedIn,
  sessionQueryKey,
  sessionUserSchema,
  toGuardUser,
  type Session,
  type SessionUser,
} from './get-session';
export { useSession, type SessionContextValue } from './session-context';
export { SessionProvider } from './session-provider';
export { logout, useSignOut } from './use-sign-out';
