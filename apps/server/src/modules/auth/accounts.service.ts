import type { DbOrTx } from '../../db/client';
import type { AuthRepository } from './auth.repository';

/** A staff account: signs in with its email as username and must set up a second factor. */
export type NewStaffAccount = {
  kind: 'staff';
  email: string;
  firstName: string;
  lastName: string;
  organization?: string | null;
};

/** A participant-portal account: its own username, no names, no second factor. */
export type NewParticipantAccount = { kind: 'participant'; email: string; username: string };

/**
 * Account creation, the one place that inserts `users` and `credentials` rows (sign-up from
 * an invitation, a Sys_Admin made by team administration, a participant-portal account).
 * The auth module owns both tables: every other module creates accounts here.
 */
export function createAccountsService(deps: {
  repository: Pick<
    AuthRepository,
    | 'insertUser'
    | 'insertCredentials'
    | 'sessionTeam'
    | 'setSessionTeam'
    | 'markEmailVerified'
    | 'setPasswordHash'
    | 'bumpTokenVersion'
    | 'revokeSessions'
    | 'clearLoginThrottles'
    | 'enableTotp'
    | 'clearSecondFactor'
  >;
}) {
  const { repository } = deps;

  return {
    // ---- The second factor (the sfa module), in its transaction.

    /** Turns the account's authenticator second factor on (its secret was verified). */
    enableTotp: (tx: DbOrTx, userId: number) => repository.enableTotp(tx, userId),

    /**
     * Turns the second factor off and ends every other session; the calling session
     * (`keepSessionId`) keeps going with the new token version, back at set-up.
     */
    clearSecondFactor: (tx: DbOrTx, userId: number, keepSessionId: string, now: Date) =>
      repository.clearSecondFactor(tx, userId, keepSessionId, now),

    // ---- A new password (the passwords module's change and reset), in its transaction.

    /** Stores a new password hash (creating the credentials row if missing). */
    setPasswordHash: (tx: DbOrTx, userId: number, passwordHash: string, now: Date) =>
      repository.setPasswordHash(tx, userId, passwordHash, now),

    /** Bumps token_version: every session and remembered device of the user stops counting. */
    bumpTokenVersion: (tx: DbOrTx, userId: number) => repository.bumpTokenVersion(tx, userId),

    /** Marks the user's open sessions revoked, so session lists tell why they ended. */
    revokeSessions: (tx: DbOrTx, userId: number, reason: string, now: Date) =>
      repository.revokeSessions(tx, userId, reason, now),

    /** Forgets failed sign-ins (and a lock) for these lower-cased usernames. */
    clearLoginThrottles: (tx: DbOrTx, usernameKeys: string[]) =>
      repository.clearLoginThrottles(tx, usernameKeys),

    /**
     * Marks a participant account's address verified (participant-accounts' verification link),
     * in the caller's transaction; false when the account's address changed since the link.
     */
    markEmailVerified: (tx: DbOrTx, userId: number, email: string, now: Date) =>
      repository.markEmailVerified(tx, userId, email, now),

    /** The session's selected team, in the caller's transaction (null before one is chosen). */
    sessionTeam: (tx: DbOrTx, sessionId: string) => repository.sessionTeam(tx, sessionId),

    /**
     * Sets the selected team of the user's own session, in the caller's transaction (the teams
     * module's team selection, which moves the last-selected flag in the same transaction).
     */
    setSessionTeam: (tx: DbOrTx, sessionId: string, userId: number, teamId: number) =>
      repository.setSessionTeam(tx, sessionId, userId, teamId),

    /**
     * Inserts the account and its password hash inside the caller's transaction; `now` is
     * the creation and password-change time (database time when omitted). Answers the id.
     * A clash on email or username surfaces as the database's unique violation.
     */
    async createAccount(
      tx: DbOrTx,
      account: NewStaffAccount | NewParticipantAccount,
      passwordHash: string,
      now?: Date,
    ): Promise<number> {
      const userId = await repository.insertUser(
        tx,
        account.kind === 'staff'
          ? {
              email: account.email,
              username: account.email,
              firstName: account.firstName,
              lastName: account.lastName,
              organization: account.organization ?? null,
              accountType: 'staff',
              sfaRequired: true,
              sfaEnabled: false,
              ...(now && { createTime: now }),
            }
          : {
              email: account.email,
              username: account.username,
              firstName: '',
              lastName: '',
              accountType: 'participant',
              sfaRequired: false,
              sfaEnabled: false,
              ...(now && { createTime: now }),
            },
      );
      await repository.insertCredentials(tx, {
        userId,
        passwordHash,
        ...(now && { passwordChangedAt: now }),
      });
      return userId;
    },
  };
}

export type AccountsService = ReturnType<typeof createAccountsService>;
