import { count, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { credentials, participants, users } from '../../db/schema';
import type { DbOrTx } from '../../lib/audit';

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
