import { and, asc, desc, eq, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import {
  credentials,
  loginThrottles,
  refreshTokens,
  sessions,
  teamUserMappings,
  teams,
  users,
  type ThrottleScope,
} from '../../db/schema';

/**
 * The session, user, role and team of an access token, read on every authenticated
 * request: only the columns the guard and the session answer use, as one prepared
 * statement (PostgreSQL plans it once per connection; Drizzle builds the SQL once).
 */
function sessionContextQuery(db: Db) {
  return db
    .select({
      session: {
        id: sessions.id,
        tokenVersion: sessions.tokenVersion,
        authStatus: sessions.authStatus,
        expiresAt: sessions.expiresAt,
        idleExpiresAt: sessions.idleExpiresAt,
        revokedAt: sessions.revokedAt,
      },
      user: {
        id: users.id,
        accountType: users.accountType,
        email: users.email,
        username: users.username,
        firstName: users.firstName,
        lastName: users.lastName,
        isActive: users.isActive,
        tokenVersion: users.tokenVersion,
      },
      role: teamUserMappings.role,
      team: {
        id: teams.id,
        teamName: teams.teamName,
        isActive: teams.isActive,
        subscriptionStarts: teams.subscriptionStarts,
        subscriptionEnds: teams.subscriptionEnds,
        hiddenFields: teams.hiddenFields,
      },
    })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .leftJoin(
      teamUserMappings,
      and(
        eq(teamUserMappings.userId, sessions.userId),
        eq(teamUserMappings.teamId, sessions.teamId),
      ),
    )
    .leftJoin(teams, eq(teams.id, sessions.teamId))
    .where(eq(sessions.id, sql.placeholder('sessionId')))
    .limit(1)
    .prepare('auth_session_context');
}

/** The only code of the auth module that touches tables. */
export function createAuthRepository(db: Db) {
  const sessionContext = sessionContextQuery(db);
  return {
    // ---- Accounts: the auth module is the one owner of users and credentials ----------

    /** Inserts an account row; answers its id. */
    /** Turns the account's authenticator second factor on (its secret was verified). */
    async enableTotp(tx: DbOrTx, userId: number) {
      await tx.update(users).set({ sfaEnabled: true, sfaType: 'totp' }).where(eq(users.id, userId));
    },

    /**
     * Turns the second factor off and ends every other session (the token_version moves on);
     * the calling session keeps going with the new version, back at set-up.
     */
    async clearSecondFactor(tx: DbOrTx, userId: number, keepSessionId: string, now: Date) {
      const [updated] = await tx
        .update(users)
        .set({ sfaEnabled: false, sfaType: null, tokenVersion: sql`${users.tokenVersion} + 1` })
        .where(eq(users.id, userId))
        .returning({ tokenVersion: users.tokenVersion });
      await tx
        .update(sessions)
        .set({ tokenVersion: updated!.tokenVersion, authStatus: 'SFAIsNotSet' })
        .where(eq(sessions.id, keepSessionId));
      // The session's earlier refresh tokens are spent: only the ones issued now count.
      await tx
        .update(refreshTokens)
        .set({ usedAt: now })
        .where(and(eq(refreshTokens.sessionId, keepSessionId), isNull(refreshTokens.usedAt)));
    },

    /** Stores a new password hash (creating the credentials row if missing). */
    async setPasswordHash(tx: DbOrTx, userId: number, passwordHash: string, now: Date) {
      await tx
        .insert(credentials)
        .values({ userId, passwordHash, passwordChangedAt: now })
        .onConflictDoUpdate({
          target: credentials.userId,
          set: { passwordHash, passwordChangedAt: now },
        });
    },

    /** Bumps token_version: every session and remembered device of the user stops counting. */
    async bumpTokenVersion(tx: DbOrTx, userId: number) {
      const [row] = await tx
        .update(users)
        .set({ tokenVersion: sql`${users.tokenVersion} + 1` })
        .where(eq(users.id, userId))
        .returning({
          tokenVersion: users.tokenVersion,
          username: users.username,
          email: users.email,
        });
      return row!;
    },

    /** Marks the user's open sessions revoked, so session lists tell why they ended. */
    async revokeSessions(tx: DbOrTx, userId: number, reason: string, now: Date) {
      await tx
        .update(sessions)
        .set({ revokedAt: now, revokedReason: reason })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
    },

    /** Forgets failed sign-ins (and a lock) for these lower-cased usernames. */
    async clearLoginThrottles(tx: DbOrTx, usernameKeys: string[]) {
      for (const key of new Set(usernameKeys)) {
        await tx
          .delete(loginThrottles)
          .where(and(eq(loginThrottles.scope, 'login'), eq(loginThrottles.usernameKey, key)));
      }
    },

    /** Marks a participant account's address verified when it is still the account's address. */
    async markEmailVerified(
      tx: DbOrTx,
      userId: number,
      email: string,
      now: Date,
    ): Promise<boolean> {
      const rows = await tx
        .update(users)
        .set({ emailVerifiedAt: now })
        .where(
          and(eq(users.id, userId), eq(users.email, email), eq(users.accountType, 'participant')),
        )
        .returning({ id: users.id });
      return rows.length > 0;
    },

    /** The session's selected team (null before one is chosen). */
    async sessionTeam(tx: DbOrTx, sessionId: string): Promise<number | null> {
      const rows = await tx
        .select({ teamId: sessions.teamId })
        .from(sessions)
        .where(eq(sessions.id, sessionId));
      return rows[0]?.teamId ?? null;
    },

    /** Sets the selected team of the user's own session. */
    async setSessionTeam(tx: DbOrTx, sessionId: string, userId: number, teamId: number) {
      await tx
        .update(sessions)
        .set({ teamId })
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId)));
    },

    async insertUser(tx: DbOrTx, values: typeof users.$inferInsert): Promise<number> {
      const [row] = await tx.insert(users).values(values).returning({ id: users.id });
      return row!.id;
    },

    async insertCredentials(tx: DbOrTx, values: typeof credentials.$inferInsert): Promise<void> {
      await tx.insert(credentials).values(values);
    },

    /** An account by username or email (both compared lower-cased), with its password hash. */
    async findAccountByUsername(usernameKey: string) {
      const rows = await db
        .select({ user: users, passwordHash: credentials.passwordHash })
        .from(users)
        .leftJoin(credentials, eq(credentials.userId, users.id))
        .where(sql`lower(${users.username}) = ${usernameKey} OR ${users.email} = ${usernameKey}`)
        .limit(1);
      return rows[0];
    },

    /**
     * Reserves one attempt for an account key before its secret (password, second-factor
     * code) is checked. Returns false while the key is locked or its failure budget in the
     * window is spent, so concurrent guesses cannot run more checks than the budget.
     */
    async reserveAttempt(
      scope: ThrottleScope,
      usernameKey: string,
      now: Date,
      maxFailures: number,
      windowMs: number,
    ) {
      const windowStart = new Date(now.getTime() - windowMs);
      await db
        .insert(loginThrottles)
        .values({ scope, usernameKey, failedCount: 0, windowStartedAt: now })
        .onConflictDoNothing();
      const fresh = sql`(${loginThrottles.windowStartedAt} <= ${windowStart} OR (${loginThrottles.lockedUntil} IS NOT NULL AND ${loginThrottles.lockedUntil} <= ${now}))`;
      const reserved = await db
        .update(loginThrottles)
        .set({
          failedCount: sql`CASE WHEN ${fresh} THEN 1 ELSE ${loginThrottles.failedCount} + 1 END`,
          windowStartedAt: sql`CASE WHEN ${fresh} THEN ${now}::timestamptz ELSE ${loginThrottles.windowStartedAt} END`,
          lockedUntil: sql`CASE WHEN ${fresh} THEN NULL ELSE ${loginThrottles.lockedUntil} END`,
        })
        .where(
          and(
            eq(loginThrottles.scope, scope),
            eq(loginThrottles.usernameKey, usernameKey),
            sql`(${loginThrottles.lockedUntil} IS NULL OR ${loginThrottles.lockedUntil} <= ${now})`,
            sql`(${fresh} OR ${loginThrottles.failedCount} < ${maxFailures})`,
          ),
        )
        .returning({ failedCount: loginThrottles.failedCount });
      return reserved.length === 1;
    },

    async lockedUntil(scope: ThrottleScope, usernameKey: string): Promise<Date | null> {
      const rows = await db
        .select({ lockedUntil: loginThrottles.lockedUntil })
        .from(loginThrottles)
        .where(and(eq(loginThrottles.scope, scope), eq(loginThrottles.usernameKey, usernameKey)));
      return rows[0]?.lockedUntil ?? null;
    },

    /** Keeps the reserved attempt as a failure; locks when the budget is spent. Returns the new lock, if this failure set it. */
    async settleFailedAttempt(
      scope: ThrottleScope,
      usernameKey: string,
      now: Date,
      maxFailures: number,
      lockMs: number,
    ) {
      const locked = await db
        .update(loginThrottles)
        .set({ lockedUntil: new Date(now.getTime() + lockMs) })
        .where(
          and(
            eq(loginThrottles.scope, scope),
            eq(loginThrottles.usernameKey, usernameKey),
            sql`${loginThrottles.failedCount} >= ${maxFailures}`,
            isNull(loginThrottles.lockedUntil),
          ),
        )
        .returning({ lockedUntil: loginThrottles.lockedUntil });
      return locked[0]?.lockedUntil ?? null;
    },

    /** Forgets the failures of a key, unless it is locked: a lock always runs its full time. */
    async clearThrottle(scope: ThrottleScope, usernameKey: string, now: Date) {
      await db
        .delete(loginThrottles)
        .where(
          and(
            eq(loginThrottles.scope, scope),
            eq(loginThrottles.usernameKey, usernameKey),
            sql`(${loginThrottles.lockedUntil} IS NULL OR ${loginThrottles.lockedUntil} <= ${now})`,
          ),
        );
    },

    /** The team a new session starts in: last selected, else default, else the first. */
    async pickTeamMapping(userId: number) {
      const rows = await db
        .select({ teamId: teamUserMappings.teamId, role: teamUserMappings.role })
        .from(teamUserMappings)
        .where(eq(teamUserMappings.userId, userId))
        .orderBy(
          desc(teamUserMappings.lastSelectedTeam),
          desc(teamUserMappings.defaultTeam),
          asc(teamUserMappings.teamId),
        )
        .limit(1);
      return rows[0];
    },

    async insertSession(tx: DbOrTx, values: typeof sessions.$inferInsert) {
      const [row] = await tx.insert(sessions).values(values).returning({ id: sessions.id });
      return row!.id;
    },

    async insertRefreshToken(tx: DbOrTx, values: typeof refreshTokens.$inferInsert) {
      await tx.insert(refreshTokens).values(values);
    },

    /** Session, user, the user's role in the session's team, and that team, in one read. */
    /** The session check of every authenticated request: see `sessionContextQuery`. */
    async loadSessionContext(sessionId: string) {
      const rows = await sessionContext.execute({ sessionId });
      return rows[0];
    },

    async findRefreshToken(tokenHash: string) {
      const rows = await db
        .select({
          token: refreshTokens,
          session: sessions,
          userTokenVersion: users.tokenVersion,
          userActive: users.isActive,
        })
        .from(refreshTokens)
        .innerJoin(sessions, eq(sessions.id, refreshTokens.sessionId))
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(eq(refreshTokens.tokenHash, tokenHash))
        .limit(1);
      return rows[0];
    },

    /**
     * Marks a refresh token spent, keeping its successor (encrypted) for the grace window;
     * false if it already was spent (a reuse, or a concurrent rotation).
     */
    async spendRefreshToken(tx: DbOrTx, id: number, now: Date, successorEncrypted: string) {
      const spent = await tx
        .update(refreshTokens)
        .set({ usedAt: now, successorEncrypted })
        .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt)))
        .returning({ id: refreshTokens.id });
      return spent.length === 1;
    },

    async extendSession(tx: DbOrTx, sessionId: string, idleExpiresAt: Date, now: Date) {
      await tx
        .update(sessions)
        .set({ idleExpiresAt, lastUsedAt: now })
        .where(eq(sessions.id, sessionId));
    },

    async revokeSession(tx: DbOrTx, sessionId: string, reason: string, now: Date) {
      await tx
        .update(sessions)
        .set({ revokedAt: now, revokedReason: reason })
        .where(and(eq(sessions.id, sessionId), isNull(sessions.revokedAt)));
    },

    /** Ends every session of a user still waiting for its second factor (after a lockout). */
    async revokePendingSessions(tx: DbOrTx, userId: number, reason: string, now: Date) {
      await tx
        .update(sessions)
        .set({ revokedAt: now, revokedReason: reason })
        .where(
          and(
            eq(sessions.userId, userId),
            isNull(sessions.revokedAt),
            ne(sessions.authStatus, 'Authorized'),
          ),
        );
    },

    /** The stored session row (to copy it into a successor session). */
    async findSession(tx: DbOrTx, sessionId: string) {
      const [row] = await tx.select().from(sessions).where(eq(sessions.id, sessionId)).limit(1);
      return row;
    },

    async setSessionAuthStatus(
      tx: DbOrTx,
      sessionId: string,
      authStatus: typeof sessions.$inferSelect.authStatus,
    ) {
      await tx.update(sessions).set({ authStatus }).where(eq(sessions.id, sessionId));
    },

    transaction: db.transaction.bind(db),
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;

/**
 * The maintenance purge's part (jobs/maintenance.ts), in its transaction: sessions past their
 * absolute or idle expiry (their refresh tokens go with them). Returns how many went.
 */
export async function purgeExpiredSessions(tx: DbOrTx, now: Date): Promise<number> {
  const dead = await tx
    .delete(sessions)
    .where(or(lt(sessions.expiresAt, now), lt(sessions.idleExpiresAt, now)))
    .returning({ id: sessions.id });
  return dead.length;
}
