import { and, desc, eq, isNull, lt } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { backendClientAssertions, backendClients, teams } from '../../db/schema';
import type { TeamStatusFields } from '../auth/session-context';

export type BackendClientRow = typeof backendClients.$inferSelect;

/** The only code that touches backend_clients and backend_client_assertions. */
export function createBackendClientsRepository(db: Db) {
  return {
    db,
    transaction: db.transaction.bind(db),

    async insert(
      tx: DbOrTx,
      values: Omit<typeof backendClients.$inferInsert, 'id' | 'createdAt'>,
    ): Promise<BackendClientRow> {
      const [row] = await tx.insert(backendClients).values(values).returning();
      return row!;
    },

    /** The team's clients, newest first. */
    async listOfTeam(teamId: number): Promise<BackendClientRow[]> {
      return db
        .select()
        .from(backendClients)
        .where(eq(backendClients.teamId, teamId))
        .orderBy(desc(backendClients.createdAt), desc(backendClients.id));
    },

    /** The team's client `id`, locked for the revocation; undefined for another team's or none. */
    async lockOfTeam(tx: DbOrTx, teamId: number, id: number) {
      const [row] = await tx
        .select()
        .from(backendClients)
        .where(and(eq(backendClients.id, id), eq(backendClients.teamId, teamId)))
        .for('update');
      return row;
    },

    async revoke(tx: DbOrTx, id: number, by: number, at: Date): Promise<BackendClientRow> {
      const [row] = await tx
        .update(backendClients)
        .set({ revokedAt: at, revokedBy: by })
        .where(and(eq(backendClients.id, id), isNull(backendClients.revokedAt)))
        .returning();
      return row!;
    },

    /**
     * A client by the client_id it authenticates with (revoked ones included), with what
     * decides its team's status (teamStatus in auth/session-context.ts), in one read.
     */
    async byClientId(
      clientId: string,
    ): Promise<(BackendClientRow & { team: TeamStatusFields }) | undefined> {
      const [row] = await db
        .select({
          client: backendClients,
          team: {
            isActive: teams.isActive,
            subscriptionStarts: teams.subscriptionStarts,
            subscriptionEnds: teams.subscriptionEnds,
          },
        })
        .from(backendClients)
        .innerJoin(teams, eq(teams.id, backendClients.teamId))
        .where(eq(backendClients.clientId, clientId));
      return row && { ...row.client, team: row.team };
    },

    sweepAssertions: purgeExpiredAssertions,

    /**
     * Records an assertion's `jti` for the client until `expiresAt`; false when the client
     * already used it (a replay).
     */
    async recordAssertion(
      tx: DbOrTx,
      backendClientId: number,
      jti: string,
      expiresAt: Date,
    ): Promise<boolean> {
      const inserted = await tx
        .insert(backendClientAssertions)
        .values({ backendClientId, jti, expiresAt })
        .onConflictDoNothing()
        .returning({ jti: backendClientAssertions.jti });
      return inserted.length === 1;
    },
  };
}

export type BackendClientsRepository = ReturnType<typeof createBackendClientsRepository>;

/**
 * Forgets the assertion ids whose assertions have expired (they can no longer be replayed):
 * at each token request, and in the 15-minute maintenance purge (jobs/maintenance.ts) for the
 * last ones. Answers how many went.
 */
export async function purgeExpiredAssertions(tx: DbOrTx, now: Date): Promise<number> {
  const gone = await tx
    .delete(backendClientAssertions)
    .where(lt(backendClientAssertions.expiresAt, now))
    .returning({ jti: backendClientAssertions.jti });
  return gone.length;
}
