import { and, count, eq, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { credentials, loginThrottles, participants, sessions, users } from '../../db/schema';
import type { DbOrTx } from '../../lib/audit';

/**
 * The only code of the participant-accounts module that touches tables. The sign-in
 * throttle works on the same `login_throttles` rows as staff sign-in (one budget per
 * lower-cased username) with the same statements as the auth module's repository.
 */
export function createParticipantAccountsRepository(db: Db) {
  return {
    transaction: db.transaction.bind(db),

    /** Accounts of any kind already holding this email or (case-insensitively) this username. */
    async findClashingAccounts(email: string, usernameKey: string) {
      return db
        .select({ id: users.id, email: users.email, username: users.username })
        .from(users)
        .where(sql`${users.email} = ${email} OR lower(${users.username}) = ${usernameKey} OR ${users.email} = ${usernameKey}`);
    },

    async insertParticipantUser(tx: DbOrTx, values: { email: string; username: string; createdAt: Date }) {
      const [row] = await tx
        .insert(users)
        .values({
          email: values.email,
          username: values.username,
          firstName: '',
          lastName: '',
          accountType: 'participant',
          sfaRequired: false,
          sfaEnabled: false,
          createTime: values.createdAt,
        })
        .returning({ id: users.id });
      return row!.id;
    },

    async insertCredentials(tx: DbOrTx, userId: number, passwordHash: string, now: Date) {
      await tx.insert(credentials).values({ userId, passwordHash, passwordChangedAt: now });
    },

    /** An account by username or email (both lower-cased), with its password hash. */
    async findAccountByUsername(usernameKey: string) {
      const rows = await db
        .select({
          id: users.id,
          accountType: users.accountType,
          isActive: users.isActive,
          tokenVersion: users.tokenVersion,
          passwordHash: credentials.passwordHash,
        })
        .from(users)
        .leftJoin(credentials, eq(credentials.userId, users.id))
        .where(sql`lower(${users.username}) = ${usernameKey} OR ${users.email} = ${usernameKey}`)
        .limit(1);
      return rows[0];
    },

    /** Reserves one sign-in attempt before the password check (see auth.repository for the reasoning). */
    async reserveLoginAttempt(usernameKey: string, now: Date, maxFailures: number, windowMs: number) {
      const windowStart = new Date(now.getTime() - windowMs);
      await db.insert(loginThrottles).values({ usernameKey, failedCount: 0, windowStartedAt: now }).onConflictDoNothing();
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
            eq(loginThrottles.usernameKey, usernameKey),
            sql`(${loginThrottles.lockedUntil} IS NULL OR ${loginThrottles.lockedUntil} <= ${now})`,
            sql`(${fresh} OR ${loginThrottles.failedCount} < ${maxFailures})`,
          ),
        )
        .returning({ failedCount: loginThrottles.failedCount });
      return reserved.length === 1;
    },

    async lockedUntil(usernameKey: string): Promise<Date | null> {
      const rows = await db
        .select({ lockedUntil: loginThrottles.lockedUntil })
        .from(loginThrottles)
        .where(eq(loginThrottles.usernameKey, usernameKey));
      return rows[0]?.lockedUntil ?? null;
    },

    /** Keeps the reserved attempt as a failure; locks when the budget is spent. Returns the new lock, if this failure set it. */
    async settleFailedAttempt(usernameKey: string, now: Date, maxFailures: number, lockMs: number) {
      const locked = await db
        .update(loginThrottles)
        .set({ lockedUntil: new Date(now.getTime() + lockMs) })
        .where(
          and(
            eq(loginThrottles.usernameKey, usernameKey),
            sql`${loginThrottles.failedCount} >= ${maxFailures}`,
            isNull(loginThrottles.lockedUntil),
          ),
        )
        .returning({ lockedUntil: loginThrottles.lockedUntil });
      return locked[0]?.lockedUntil ?? null;
    },

    async clearLoginThrottle(usernameKey: string) {
      await db.delete(loginThrottles).where(eq(loginThrottles.usernameKey, usernameKey));
    },

    async insertSession(tx: DbOrTx, values: typeof sessions.$inferInsert) {
      const [row] = await tx.insert(sessions).values(values).returning({ id: sessions.id });
      return row!.id;
    },

    async findEmail(userId: number): Promise<string | undefined> {
      const rows = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
      return rows[0]?.email;
    },

    /** Participant records (any team, any trial) with this email: the account's link to them. */
    async countParticipantsWithEmail(email: string): Promise<number> {
      const rows = await db.select({ n: count() }).from(participants).where(eq(participants.email, email));
      return rows[0]?.n ?? 0;
    },
  };
}

export type ParticipantAccountsRepository = ReturnType<typeof createParticipantAccountsRepository>;
