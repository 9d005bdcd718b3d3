import { sql } from 'drizzle-orm';
import {
  check,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { createdAt, identityId, oneOf, timestamptz } from './columns';
import { teams } from './teams';
import { users } from './users';

/** How the Admin gave the client's public key (the stored JWKS is the same shape either way). */
export const BACKEND_KEY_FORMATS = ['jwks', 'pem'] as const;
export type BackendKeyFormat = (typeof BACKEND_KEY_FORMATS)[number];

/** A public key as stored: a JWK with the algorithm it verifies (RS384 or ES384). */
export type StoredPublicJwk = Record<string, unknown> & { kty: string; alg: string; kid?: string };

/**
 * SMART Backend Services clients a team Admin registered (issue 31): machines that sign a
 * client assertion with their private key and get a short-lived bearer token for /fhir.
 * `client_id` is an opaque random string handed to the client (never the row id). A client
 * is revoked, never deleted, so the audit trail keeps naming it.
 */
export const backendClients = pgTable(
  'backend_clients',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    clientId: text('client_id').notNull(),
    name: text('name').notNull(),
    keyFormat: text('key_format').$type<BackendKeyFormat>().notNull(),
    /** `{ keys: [...] }`: the usable public keys only, each with its `alg`. */
    jwks: jsonb('jwks').$type<{ keys: StoredPublicJwk[] }>().notNull(),
    scopes: text('scopes').array().notNull(),
    createdBy: integer('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    createdAt: createdAt(),
    revokedAt: timestamptz('revoked_at'),
    revokedBy: integer('revoked_by').references(() => users.id, { onDelete: 'restrict' }),
  },
  (t) => [
    uniqueIndex('backend_clients_client_id_unique').on(t.clientId),
    index('backend_clients_team_id_created_at_idx').on(t.teamId, t.createdAt),
    // Foreign keys are indexed (a user's deletion checks them).
    index('backend_clients_created_by_idx').on(t.createdBy),
    index('backend_clients_revoked_by_idx').on(t.revokedBy),
    check('backend_clients_key_format', oneOf(t.keyFormat, BACKEND_KEY_FORMATS)),
    check('backend_clients_revoked_pair', sql`(${t.revokedAt} IS NULL) = (${t.revokedBy} IS NULL)`),
  ],
);

/**
 * The `jti` of every client assertion accepted, kept until the assertion's `exp` so a replay
 * is refused (SMART Backend Services). The token endpoint deletes the expired rows as it
 * goes, so the table holds at most five minutes of assertions.
 */
export const backendClientAssertions = pgTable(
  'backend_client_assertions',
  {
    backendClientId: integer('backend_client_id')
      .notNull()
      .references(() => backendClients.id, { onDelete: 'cascade' }),
    jti: text('jti').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.backendClientId, t.jti] }),
    index('backend_client_assertions_expires_at_idx').on(t.expiresAt),
  ],
);
