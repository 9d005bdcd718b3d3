import type { AuthStatus, Role, SessionUser } from '@trialpulse/shared';
import type { AuthRepository } from './auth.repository';

/** Who is calling, resolved once per request from the session (see auth.guard). */
export type AuthContext = {
  kind: 'staff' | 'participant';
  userId: number;
  sessionId: string;
  tokenVersion: number;
  authStatus: AuthStatus;
  /** The selected team and the caller's role in it (null when the user has none). */
  teamId: number | null;
  role: Role | null;
  user: SessionUser;
};

type LoadedSession = NonNullable<Awaited<ReturnType<AuthRepository['loadSessionContext']>>>;

/** Why a stored session no longer counts; null when it is valid at `now`. */
export function sessionProblem(
  loaded: LoadedSession,
  tokenVersion: number,
  now: Date,
): string | null {
  const { session, user } = loaded;
  if (session.revokedAt) return 'revoked';
  if (session.expiresAt <= now) return 'expired';
  if (session.idleExpiresAt <= now) return 'idle';
  if (!user.isActive) return 'inactive';
  if (user.tokenVersion !== tokenVersion || session.tokenVersion !== tokenVersion)
    return 'token_version';
  return null;
}

/** What decides a team's status: its switch and subscription period (a teams row has them). */
export type TeamStatusFields = {
  isActive: boolean;
  subscriptionStarts: Date | null;
  subscriptionEnds: Date | null;
};

/**
 * A team counts as active while it is switched on and inside its subscription period (the
 * session's team, and a backend client's team at each /fhir call).
 */
export function teamStatus(
  team: TeamStatusFields | null | undefined,
  now: Date,
): 'Active' | 'Inactive' | null {
  if (!team) return null;
  const started = !team.subscriptionStarts || team.subscriptionStarts <= now;
  const notEnded = !team.subscriptionEnds || team.subscriptionEnds > now;
  return team.isActive && started && notEnded ? 'Active' : 'Inactive';
}

export function toAuthContext(loaded: LoadedSession, now: Date): AuthContext {
  const { session, user, role, team } = loaded;
  const teamId = team ? team.id : null;
  return {
    kind: user.accountType,
    userId: user.id,
    sessionId: session.id,
    tokenVersion: session.tokenVersion,
    authStatus: session.authStatus,
    teamId,
    role: role ?? null,
    user: {
      id: user.id,
      email: user.email,
      username: user.username,
      first_name: user.firstName,
      last_name: user.lastName,
      role: role ?? null,
      teamId,
      team_name: team?.teamName ?? null,
      teamStatus: teamStatus(team, now),
      hiddenFields: team?.hiddenFields ?? [],
      authStatus: session.authStatus,
      token_version: user.tokenVersion,
    },
  };
}
