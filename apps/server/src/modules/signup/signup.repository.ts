import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { oneTimeTokens, teamUserMappings, teams, users, type UserRole } from '../../db/schema';

/** The only code of the signup module that touches tables. */
export function createSignupRepository(db: Db) {
  const validInvitation = (tokenHash: string, now: Date) =>
    and(
      eq(oneTimeTokens.tokenHash, tokenHash),
      eq(oneTimeTokens.purpose, 'signup_invitation'),
      isNull(oneTimeTokens.usedAt),
      gt(oneTimeTokens.expiresAt, now),
    );

  return {
    transaction: db.transaction.bind(db),

    async listTeams() {
      return db
        .select({ team_id: teams.id, team_name: teams.teamName })
        .from(teams)
        .orderBy(asc(sql`lower(${teams.teamName})`), asc(teams.id));
    },

    async findTeam(teamId: number) {
      const rows = await db
        .select({ id: teams.id, teamName: teams.teamName, maxUsers: teams.maxUsers })
        .from(teams)
        .where(eq(teams.id, teamId));
      return rows[0];
    },

    /** Any account (staff or participant) with this lower-cased email. */
    async findUserByEmail(email: string) {
      const rows = await db
        .select({ id: users.id, isActive: users.isActive, accountType: users.accountType })
        .from(users)
        .where(eq(users.email, email))
        .limit(1);
      return rows[0];
    },

    async isTeamMember(userId: number, teamId: number): Promise<boolean> {
      const rows = await db
        .select({ id: teamUserMappings.id })
        .from(teamUserMappings)
        .where(and(eq(teamUserMappings.userId, userId), eq(teamUserMappings.teamId, teamId)));
      return rows.length > 0;
    },

    /** Spends the unused invitations of an email address (a newer invitation supersedes them). */
    async invalidateInvitations(tx: DbOrTx, email: string, now: Date) {
      await tx
        .update(oneTimeTokens)
        .set({ usedAt: now })
        .where(
          and(
            eq(oneTimeTokens.purpose, 'signup_invitation'),
            eq(oneTimeTokens.email, email),
            isNull(oneTimeTokens.usedAt),
          ),
        );
    },

    async insertInvitation(
      tx: DbOrTx,
      values: {
        tokenHash: string;
        email: string;
        role: UserRole;
        teamId: number;
        createdByUserId: number;
        createdAt: Date;
        expiresAt: Date;
      },
    ) {
      const [row] = await tx
        .insert(oneTimeTokens)
        .values({ purpose: 'signup_invitation', ...values })
        .returning({ id: oneTimeTokens.id });
      return row!.id;
    },

    /** An unused, unexpired invitation with its team. */
    async findValidInvitation(tokenHash: string, now: Date) {
      const rows = await db
        .select({
          id: oneTimeTokens.id,
          email: oneTimeTokens.email,
          role: oneTimeTokens.role,
          teamId: teams.id,
          teamName: teams.teamName,
        })
        .from(oneTimeTokens)
        .innerJoin(teams, eq(teams.id, oneTimeTokens.teamId))
        .where(validInvitation(tokenHash, now))
        .limit(1);
      const row = rows[0];
      return row && row.email && row.role
        ? { ...row, email: row.email, role: row.role }
        : undefined;
    },

    /**
     * Spends an invitation in one statement (it works once, even under concurrent use).
     * Returns what it grants, or undefined when it was not valid.
     */
    async consumeInvitation(tx: DbOrTx, tokenHash: string, now: Date) {
      const rows = await tx
        .update(oneTimeTokens)
        .set({ usedAt: now })
        .where(validInvitation(tokenHash, now))
        .returning({
          id: oneTimeTokens.id,
          email: oneTimeTokens.email,
          role: oneTimeTokens.role,
          teamId: oneTimeTokens.teamId,
        });
      const row = rows[0];
      return row && row.email && row.role && row.teamId !== null
        ? { id: row.id, email: row.email, role: row.role, teamId: row.teamId }
        : undefined;
    },
  };
}

export type SignupRepository = ReturnType<typeof createSignupRepository>;
