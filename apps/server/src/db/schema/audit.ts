import { bigint, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { timestamptz } from './columns';

/**
 * Append-only audit log: one row per change (and per sensitive read), written in the same
 * transaction as the change. Deliberately no foreign keys: rows must outlive the users,
 * teams and entities they describe, and no cascade may ever delete them. The application's
 * database role is to get INSERT and SELECT only (REVOKE UPDATE, DELETE) once roles are
 * provisioned; until then repositories only ever insert here.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    /** When, in UTC (timestamptz). */
    at: timestamptz('at').notNull().defaultNow(),
    actorUserId: integer('actor_user_id'),
    teamId: integer('team_id'),
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id'),
    before: jsonb('before'),
    after: jsonb('after'),
    requestId: text('request_id'),
  },
  (t) => [
    index('audit_log_team_id_at_idx').on(t.teamId, t.at),
    index('audit_log_actor_user_id_at_idx').on(t.actorUserId, t.at),
    index('audit_log_entity_idx').on(t.entityType, t.entityId),
  ],
);
