import { auditLog } from '../db/schema';
import type { DbOrTx } from '../db/client';

export type AuditEntry = {
  action: string;
  entityType: string;
  entityId?: string | number | null;
  actorUserId?: number | null;
  teamId?: number | null;
  before?: unknown;
  after?: unknown;
  requestId?: string | null;
};

/**
 * Appends one audit row. Call it with the transaction that makes the change, so the row
 * exists exactly when the change does. Never pass secrets (passwords, tokens, codes) in
 * `before`/`after`.
 */
export async function recordAudit(db: DbOrTx, entry: AuditEntry): Promise<void> {
  await db.insert(auditLog).values({
    action: entry.action,
    entityType: entry.entityType,
    entityId:
      entry.entityId === undefined || entry.entityId === null ? null : String(entry.entityId),
    actorUserId: entry.actorUserId ?? null,
    teamId: entry.teamId ?? null,
    before: entry.before ?? null,
    after: entry.after ?? null,
    requestId: entry.requestId ?? null,
  });
}
