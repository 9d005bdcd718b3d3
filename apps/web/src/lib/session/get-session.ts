import { z } from 'zod';
import { isAuthStatus, isRole, type GuardUser } from '@trialpulse/shared';
import { api, isApiError } from '@/lib/api-client';

/** The signed-in staff member as `GET /api/auth/session` and `GET /api/auth/login/` describe them. */
export const sessionUserSchema = z.object({
  id: z.union([z.number(), z.string()]),
  email: z.string().catch(''),
  username: z.string().catch(''),
  first_name: z.string().catch(''),
  last_name: z.string().catch(''),
  role: z.string().nullable().catch(null),
  teamId: z.union([z.number(), z.string()]).nullable().catch(null),
  team_name: z.string().nullable().catch(null),
  teamStatus: z.string().nullable().catch(null),
  hiddenFields: z.array(z.string()).catch([]),
  authStatus: z.string().catch('SFAIsNotSet'),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

/**
 * Where the visitor stands: signed out (with the notice of the sign-out that ended the
 * session, for the login page); half-way (password accepted, second factor still
 * due — the server only tells us the status); or signed in with a user record.
 */
export type Session =
  | { status: 'signed-out'; notice?: string }
  | { status: 'second-factor'; authStatus: string }
  | { status: 'signed-in'; user: SessionUser };

export const SIGNED_OUT: Session = { status: 'signed-out' };

export const sessionQueryKey = ['session'] as const;

/**
 * Loads the session from `GET /api/auth/session`, which answers 200 whether or not a session
 * is present (decision 0195): the spec's `GET /auth/login/` answers a signed-out visitor
 * 401 and a half-signed-in one 403, which the browser logs as failed requests on every
 * sign-in. Signed in with a user → that user's session (second factor pending or done);
 * not signed in, a network failure or an unreadable answer → signed out.
 */
export async function getSession(signal?: AbortSignal): Promise<Session> {
  try {
    const data = await api.get<{ signedIn?: unknown; user?: unknown } | undefined>(
      '/auth/session',
      { signal, ignoreUnauthorized: true },
    );
    if (data?.signedIn !== true) return SIGNED_OUT;
    return sessionFromUser(data.user) ?? SIGNED_OUT;
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    return SIGNED_OUT;
  }
}

/**
 * The session a user record stands for (the login answer, `GET /auth/user`): signed in
 * when the second factor is done, else half-way with its status. `null` when unreadable.
 */
export function sessionFromUser(user: unknown): Session | null {
  const parsed = sessionUserSchema.safeParse(user);
  if (!parsed.success) return null;
  if (parsed.data.authStatus === 'Authorized') return { status: 'signed-in', user: parsed.data };
  return { status: 'second-factor', authStatus: parsed.data.authStatus };
}

/** A 403 whose body carries a pending second-factor status keeps the user at that status. */
export function secondFactorFromError(error: unknown): Session | null {
  if (!isApiError(error) || error.status !== 403) return null;
  const authStatus = (error.body?.user as { authStatus?: unknown } | null)?.authStatus;
  if (isAuthStatus(authStatus) && authStatus !== 'Authorized') {
    return { status: 'second-factor', authStatus };
  }
  return null;
}

/** The shape `decideRouteAccess` from the shared package expects. */
export function toGuardUser(session: Session): GuardUser | null {
  switch (session.status) {
    case 'signed-out':
      return null;
    case 'second-factor':
      return { role: null, authStatus: session.authStatus };
    case 'signed-in':
      return { role: session.user.role, authStatus: session.user.authStatus };
  }
}

/** Second factor done and a known role: the visitor gets the full staff layout. */
export function isFullySignedIn(session: Session): boolean {
  return (
    session.status === 'signed-in' &&
    session.user.authStatus === 'Authorized' &&
    isRole(session.user.role)
  );
}

export function displayName(user: SessionUser): string {
  const name = `${user.first_name} ${user.last_name}`.trim();
  return name || user.username || user.email;
}
