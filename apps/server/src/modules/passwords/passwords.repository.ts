import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { credentials, oneTimeTokens, users } from '../../db/schema';

/** The only code of the passwords module that touches tables. */
export function createPasswordsRepository(db: Db) {
  return {
    transaction: db.transaction.bind(db),

    /** An account by (lower-cased) email, without its password hash. */
    async findAccountByEmail(email: string) {
      const rows = await db
        .select({
          id: users.id,
          email: users.email,
          username: users.username,
          isActive: users.isActive,
          accountType: users.accountType,
        })
        .from(users)
        .where(eq(users.email, email))
        .limit(1);
      return rows[0];
    },

    async findPasswordHash(userId: number): Promise<string | undefined> {
      const rows = await db
        .select({ passwordHash: credentials.passwordHash })
        .from(credentials)
        .where(eq(credentials.userId, userId));
      return rows[0]?.passwordHash;
    },

    /** Locks the user row until the transaction ends (serialises reset requests per account). */
    async lockUser(tx: DbOrTx, userId: number) {
      await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
    },

    /** Reset tokens issued to a user since `since`, used or not (the per-email mail budget). */
    async countResetTokensSince(tx: DbOrTx, userId: number, since: Date): Promise<number> {
      const rows = await tx
        .select({ n: count() })
        .from(oneTimeTokens)
        .where(
          and(
            eq(oneTimeTokens.purpose, 'password_reset'),
            eq(oneTimeTokens.userId, userId),
            gt(oneTimeTokens.createdAt, since),
          ),
        );
      return rows[0]?.n ?? 0;
    },

    /** Spends every unused reset token of a user (a newer one, or a new password, supersedes them). */
    async invalidateResetTokens(tx: DbOrTx, userId: number, now: Date) {
      await tx
        .update(oneTimeTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(oneTimeTokens.purpose, 'password_reset'),
            eq(oneTimeTokens.userId, userId),
            isNull(oneTimeTokens.usedAt),
          ),
        );
    },

    async insertResetToken(
      tx: DbOrTx,
      values: { userId: number; tokenHash: string; createdAt: Date; expiresAt: Date },
    ) {
      const [row] = await tx
        .insert(oneTimeTokens)
        .values({ purpose: 'password_reset', ...values })
        .returning({ id: oneTimeTokens.id });
      return row!.id;
    },

    /** The user of an unused, unexpired reset token whose account is still an active staff account. */
    async findValidResetToken(tokenHash: string, now: Date) {
      const rows = await db
        .select({ tokenId: oneTimeTokens.id, userId: users.id })
        .from(oneTimeTokens)
        .innerJoin(users, eq(users.id, oneTimeTokens.userId))
        .where(
          and(
            eq(oneTimeTokens.tokenHash, tokenHash),
            eq(oneTimeTokens.purpose, 'password_reset'),
            isNull(oneTimeTokens.usedAt),
            gt(oneTimeTokens.expiresAt, now),
            eq(users.isActive, true),
            eq(users.accountType, 'staff'),
          ),
        )
        .limit(1);
      return rows[0];
    },

    /**
     * Spends a reset token in one statement, so two concurrent resets with the same link
     * cannot both succeed. Returns the token's user, or undefined when it was not valid.
     */
    async consumeResetToken(tx: DbOrTx, tokenHash: string, now: Date) {
      const rows = await tx
        .update(oneTimeTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(oneTimeTokens.tokenHash, tokenHash),
            eq(oneTimeTokens.purpose, 'password_reset'),
            isNull(oneTimeTokens.usedAt),
            gt(oneTimeTokens.expiresAt, now),
            sql`${oneTimeTokens.userId} IN (SELECT ${users.id} FROM ${users} WHERE ${users.isActive} AND ${users.accountType} = 'staff')`,
          ),
        )
        .returning({ tokenId: oneTimeTokens.id, userId: oneTimeTokens.userId });
      const row = rows[0];
      return row && row.userId !== null ? { tokenId: row.tokenId, userId: row.userId } : undefined;
    },
  };
}

export type PasswordsRepository = ReturnType<typeof createPasswordsRepository>;
