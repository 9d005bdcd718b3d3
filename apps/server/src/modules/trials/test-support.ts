import { and, eq, gt } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import type { Db } from '../../db/client';
import { auditLog, participants, sessions } from '../../db/schema';
import { TestClient, type TestUser } from '../../test/fixtures';
import { ACCESS_COOKIE } from '../auth/session-tokens';

/** The session id inside the client's access cookie. */
export const sessionIdOf = (client: TestClient) =>
  JSON.parse(Buffer.from(client.jar.get(ACCESS_COOKIE)!.split('.')[1]!, 'base64url').toString())
    .sid as string;

/**
 * A browser signed in through the real login call, with the second factor marked done
 * (the second-factor flow has its own tests), so feature calls see a fully signed-in user.
 */
export async function signIn(app: FastifyInstance, db: Db, user: TestUser): Promise<TestClient> {
  const client = new TestClient(app);
  const response = await client.login(user.username, user.password);
  expect(response.statusCode, response.body).toBe(200);
  await db
    .update(sessions)
    .set({ authStatus: 'Authorized' })
    .where(eq(sessions.id, sessionIdOf(client)));
  return client;
}

/** Audit rows written after `afterId` (take `lastAuditId` before the action). */
export async function auditSince(db: Db, afterId: number) {
  return db.select().from(auditLog).where(gt(auditLog.id, afterId)).orderBy(auditLog.id);
}

export async function lastAuditId(db: Db): Promise<number> {
  const rows = await db.select({ id: auditLog.id }).from(auditLog);
  return rows.reduce((max, row) => Math.max(max, row.id), 0);
}

/** Participants written directly (the participants API is a later issue). */
export async function addParticipants(
  db: Db,
  trial: { id: number; teamId: number; trialCode: string },
  suffixes: string[],
) {
  await db.insert(participants).values(
    suffixes.map((suffix) => ({
      teamId: trial.teamId,
      trialId: trial.id,
      participantCode: `${trial.trialCode}-${suffix}`,
      participantCodeSuffix: suffix,
    })),
  );
}

export async function participantCount(db: Db, trialId: number, teamId: number) {
  return (
    await db
      .select({ id: participants.id })
      .from(participants)
      .where(and(eq(participants.trialId, trialId), eq(participants.teamId, teamId)))
  ).length;
}
