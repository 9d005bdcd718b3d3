import { and, eq, gt } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { auditLog, participants } from '../../db/schema';

export { sessionIdOf, signIn } from '../../test/fixtures';

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
