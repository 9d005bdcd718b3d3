import { and, count, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { oneTimeTokens, participants, users } from '../../db/schema';

/**
 * The only code of the participant-accounts module that touches tables. Sign-in itself
 * (throttle, session) is the auth module's, reached through its service.
 */
export function createParticipantAccountsRepository(db: Db) {
  return {
    transaction: db.transaction.bind(db),

    /** Accounts of any kind already holding this email or (case-insensitively) this username. */
    async findClashingAccounts(email: string, usernameKey: string) {
      return db
        .select({ id: users.id, email: users.email, username: users.username })
        .from(users)
        .where(
          sql`${users.email} = ${email} OR lower(${users.username}) = ${usernameKey} OR ${users.email} = ${usernameKey}`,
        );
    },

    async findEmail(userId: number): Promise<string | undefined> {
      const rows = await db.select({ email: users.email }).from(users).where(eq(users.id, userId));
      return rows[0]?.email;
    },

    async findAccount(userId: number) {
      const [row] = await db
        .select({ email: users.email, emailVerifiedAt: users.emailVerifiedAt })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.accountType, 'participant')));
      return row;
    },

    async insertVerificationToken(
      tx: DbOrTx,
      values: { userId: number; email: string; tokenHash: string; expiresAt: Date },
    ) {
      await tx
        .insert(oneTimeTokens)
        .values({ purpose: 'participant_email_verification', ...values });
    },

    /** Spends an unused, unexpired verification token; answers its account or undefined. */
    async claimVerificationToken(tx: DbOrTx, tokenHash: string, now: Date) {
      const [row] = await tx
        .update(oneTimeTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(oneTimeTokens.tokenHash, tokenHash),
            eq(oneTimeTokens.purpose, 'participant_email_verification'),
            isNull(oneTimeTokens.usedAt),
            gt(oneTimeTokens.expiresAt, now),
          ),
        )
        .returning({ userId: oneTimeTokens.userId, email: oneTimeTokens.email });
      return row;
    },

    /** Participant records (any team, any trial) with this email: the account's link to them. */
    async countParticipantsWithEmail(email: string): Promise<number> {
      const rows = await db
        .select({ n: count() })
        .from(participants)
        .where(eq(participants.email, email));
      return rows[0]?.n ?? 0;
    },
  };
}

export type ParticipantAccountsRepository = ReturnType<typeof createParticipantAccountsRepository>;
