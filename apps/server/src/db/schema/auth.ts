import { sql } from 'drizzle-orm';
import {
  bigint,
  check,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  uuid,
} from 'drizzle-orm/pg-core';
import { AUTH_STATUSES } from '@trialpulse/shared/auth-status';
import { createdAt, identityId, oneOf, timestamptz, updatedAt } from './columns';
import { participants } from './participants';
import { teams } from './teams';
import { userRoleEnum, users } from './users';

/**
 * Security-model tables. Secrets are never stored in a form that can be used directly:
 * passwords as argon2id hashes, tokens and codes as SHA-256 hashes (hex), TOTP secrets
 * encrypted with AES-256-GCM (lib/crypto, stored as text).
 */

/** The password hash, one row per user; kept apart from `users` so user reads never carry it. */
export const credentials = pgTable('credentials', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  passwordHash: text('password_hash').notNull(),
  passwordChangedAt: timestamptz('password_changed_at').notNull().defaultNow(),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const THROTTLE_SCOPES = ['login', 'sfa'] as const;
export type ThrottleScope = (typeof THROTTLE_SCOPES)[number];

/**
 * Failed attempts per account key and scope. Scope 'login': the submitted username
 * (lower-cased), whether or not such an account exists, so a locked, a wrong and an
 * unknown account answer alike. Scope 'sfa': wrong second-factor codes per user id, kept
 * apart so a correct password never clears them. An attempt reserves its slot here before
 * the secret is checked, so concurrent guesses cannot run more checks than the limit allows.
 */
export const loginThrottles = pgTable(
  'login_throttles',
  {
    scope: text('scope', { enum: THROTTLE_SCOPES }).notNull().default('login'),
    usernameKey: text('username_key').notNull(),
    failedCount: integer('failed_count').notNull().default(0),
    windowStartedAt: timestamptz('window_started_at').notNull().defaultNow(),
    lockedUntil: timestamptz('locked_until'),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: 'login_throttles_pkey', columns: [t.scope, t.usernameKey] }),
    index('login_throttles_locked_until_idx').on(t.lockedUntil),
    check('login_throttles_failed_count_non_negative', sql`${t.failedCount} >= 0`),
    check('login_throttles_scope_known', oneOf(t.scope, THROTTLE_SCOPES)),
  ],
);

/**
 * Per-route request counters (per client address or per account), shared by every web
 * process (the @fastify/rate-limit store). A row is one key's current fixed window.
 */
export const rateLimitHits = pgTable(
  'rate_limit_hits',
  {
    key: text('key').primaryKey(),
    hits: integer('hits').notNull().default(0),
    resetAt: timestamptz('reset_at').notNull(),
  },
  (t) => [index('rate_limit_hits_reset_at_idx').on(t.resetAt)],
);

/** Spent human-check (ALTCHA) challenges, kept until they expire: a solved payload counts once across processes. */
export const humanCheckSpent = pgTable(
  'human_check_spent',
  {
    challenge: text('challenge').primaryKey(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (t) => [index('human_check_spent_expires_at_idx').on(t.expiresAt)],
);

/** TOTP secret per user, encrypted; `verified_at` null until the setup code was verified. */
export const sfaSecrets = pgTable('sfa_secrets', {
  userId: integer('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  secretEncrypted: text('secret_encrypted').notNull(),
  verifiedAt: timestamptz('verified_at'),
  /** Last accepted TOTP time step, so a used code cannot be replayed. */
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A sign-in session, which is also the refresh-token family: every refresh token issued
 * for it points here, and reuse of a rotated token revokes the whole session.
 */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The team chosen for this session (null until chosen). */
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'set null' }),
    /** users.token_version when the session started; a mismatch ends the session. */
    tokenVersion: integer('token_version').notNull(),
    authStatus: text('auth_status', { enum: AUTH_STATUSES }).notNull().default('SFAIsNotSet'),
    createdAt: createdAt(),
    lastUsedAt: timestamptz('last_used_at').notNull().defaultNow(),
    /** Idle timeout: pushed forward by each refresh. */
    idleExpiresAt: timestamptz('idle_expires_at').notNull(),
    /** Absolute lifetime (≤ 12 h). */
    expiresAt: timestamptz('expires_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
    revokedReason: text('revoked_reason'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('sessions_user_id_idx').on(t.userId),
    index('sessions_team_id_idx').on(t.teamId),
    index('sessions_expires_at_idx').on(t.expiresAt),
    check('sessions_auth_status_known', oneOf(t.authStatus, AUTH_STATUSES)),
  ],
);

/** Rotating refresh tokens (hashed). A token with `used_at` set presented again = reuse. */
export const refreshTokens = pgTable(
  'refresh_tokens',
  {
    id: identityId(),
    sessionId: uuid('session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique('refresh_tokens_token_hash_unique'),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
    /**
     * The refresh token that replaced this one, AES-256-GCM encrypted: for the short grace
     * window in which a concurrent refresh (a second tab) gets the same new pair.
     */
    successorEncrypted: text('successor_encrypted'),
  },
  (t) => [
    index('refresh_tokens_session_id_idx').on(t.sessionId),
    index('refresh_tokens_expires_at_idx').on(t.expiresAt),
  ],
);

/**
 * "Remember this device for 48 hours": skips only the second factor. Void when the user's
 * token_version moved on (password change, SFA reset, logout-all).
 */
export const rememberedDevices = pgTable(
  'remembered_devices',
  {
    id: identityId(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique('remembered_devices_token_hash_unique'),
    tokenVersion: integer('token_version').notNull(),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    lastUsedAt: timestamptz('last_used_at'),
    userAgent: text('user_agent'),
  },
  (t) => [
    index('remembered_devices_user_id_idx').on(t.userId),
    index('remembered_devices_expires_at_idx').on(t.expiresAt),
  ],
);

export const ONE_TIME_CODE_PURPOSES = ['sfa_email'] as const;

/** Short numeric codes sent by email (second factor); at most 5 wrong tries each. */
export const oneTimeCodes = pgTable(
  'one_time_codes',
  {
    id: identityId(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    purpose: text('purpose', { enum: ONE_TIME_CODE_PURPOSES }).notNull(),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [
    index('one_time_codes_user_id_idx').on(t.userId, t.purpose),
    index('one_time_codes_expires_at_idx').on(t.expiresAt),
    check('one_time_codes_purpose_known', oneOf(t.purpose, ONE_TIME_CODE_PURPOSES)),
    check('one_time_codes_attempts_non_negative', sql`${t.attempts} >= 0`),
  ],
);

export const ONE_TIME_TOKEN_PURPOSES = [
  'password_reset',
  'signup_invitation',
  'participant_consent',
  'participant_email_verification',
] as const;

/**
 * Single-use link tokens (≥128-bit random, stored hashed): password reset (user_id),
 * sign-up invitation from the approval page (email, role, team_id), participant consent
 * link (participant_id, team_id).
 */
export const oneTimeTokens = pgTable(
  'one_time_tokens',
  {
    id: identityId(),
    purpose: text('purpose', { enum: ONE_TIME_TOKEN_PURPOSES }).notNull(),
    tokenHash: text('token_hash').notNull().unique('one_time_tokens_token_hash_unique'),
    userId: integer('user_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email'),
    teamId: integer('team_id').references(() => teams.id, { onDelete: 'cascade' }),
    role: userRoleEnum('role'),
    participantId: integer('participant_id').references(() => participants.id, {
      onDelete: 'cascade',
    }),
    /** Consent links: the brand the participant is asked to authorise. */
    deviceBrand: text('device_brand'),
    createdByUserId: integer('created_by_user_id').references(() => users.id, {
      onDelete: 'set null',
    }),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [
    index('one_time_tokens_user_id_idx').on(t.userId),
    index('one_time_tokens_team_id_idx').on(t.teamId),
    index('one_time_tokens_participant_id_idx').on(t.participantId),
    index('one_time_tokens_created_by_user_id_idx').on(t.createdByUserId),
    index('one_time_tokens_expires_at_idx').on(t.expiresAt),
    check('one_time_tokens_purpose_known', oneOf(t.purpose, ONE_TIME_TOKEN_PURPOSES)),
    check(
      'one_time_tokens_email_lower_case',
      sql`${t.email} IS NULL OR ${t.email} = lower(${t.email})`,
    ),
  ],
);
