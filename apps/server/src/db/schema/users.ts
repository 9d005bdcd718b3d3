import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  integer,
  pgEnum,
  pgTable,
  text,
  unique,
  uniqueIndex,
} from 'drizzle-orm/pg-core';
import { ROLES, type Role } from '@trialpulse/shared/roles';
import { createdAt, identityId, oneOf, timestamptz, updatedAt } from './columns';
import { teams } from './teams';

/** Same values as `ROLES` in packages/shared (checked at compile time below). */
/** Same values as `ROLES` in packages/shared; `_RolesInSync` fails to compile if they drift. */
export const userRoleEnum = pgEnum('user_role', ROLES);
export type UserRole = (typeof userRoleEnum.enumValues)[number];
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type AssertTrue<T extends true> = T;
export type _RolesInSync = AssertTrue<Same<Role, UserRole>>;

/** How the second factor is delivered: authenticator app (TOTP) or emailed code. */
export const SFA_TYPES = ['totp', 'email'] as const;

/** Staff accounts work in teams; participant accounts only reach their own consent pages. */
export const ACCOUNT_TYPES = ['staff', 'participant'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/**
 * Accounts. `email` is stored lower-cased (a check enforces it) and unique; the username
 * is the email for staff, unique case-insensitively. The password hash is in
 * `credentials` so that reading a user never reads a hash. Sign-in lockout counters are
 * in `login_throttles`, keyed by the submitted username, so unknown usernames lock the
 * same way real ones do.
 */
export const users = pgTable(
  'users',
  {
    id: identityId(),
    email: text('email').notNull(),
    username: text('username').notNull(),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    organization: text('organization'),
    isActive: boolean('is_active').notNull().default(true),
    /**
     * When the account proved it receives mail at its address. Participant accounts see
     * their enrolments (matched by email) only once it is set.
     */
    emailVerifiedAt: timestamptz('email_verified_at'),
    sfaRequired: boolean('sfa_required').notNull().default(true),
    sfaEnabled: boolean('sfa_enabled').notNull().default(false),
    sfaType: text('sfa_type', { enum: SFA_TYPES }),
    /** Bumped on logout-all, password change, role change, SFA reset: kills every session. */
    tokenVersion: integer('token_version').notNull().default(0),
    accountType: text('account_type', { enum: ACCOUNT_TYPES }).notNull().default('staff'),
    createTime: timestamptz('create_time').notNull().defaultNow(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex('users_email_unique').on(sql`lower(${t.email})`),
    uniqueIndex('users_username_unique').on(sql`lower(${t.username})`),
    check('users_email_lower_case', sql`${t.email} = lower(${t.email})`),
    check('users_sfa_type_known', sql`${t.sfaType} IS NULL OR ${oneOf(t.sfaType, SFA_TYPES)}`),
    check('users_token_version_non_negative', sql`${t.tokenVersion} >= 0`),
    check('users_account_type_known', oneOf(t.accountType, ACCOUNT_TYPES)),
  ],
);

/**
 * Team-user mapping: a user's role in a team. At most one default team and one
 * last-selected team per user (partial unique indexes).
 */
export const teamUserMappings = pgTable(
  'team_user_mappings',
  {
    id: identityId(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    role: userRoleEnum('role').notNull(),
    defaultTeam: boolean('default_team').notNull().default(false),
    lastSelectedTeam: boolean('last_selected_team').notNull().default(false),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('team_user_mappings_user_team_unique').on(t.userId, t.teamId),
    index('team_user_mappings_team_id_idx').on(t.teamId),
    uniqueIndex('team_user_mappings_one_default_team')
      .on(t.userId)
      .where(sql`${t.defaultTeam}`),
    uniqueIndex('team_user_mappings_one_last_selected_team')
      .on(t.userId)
      .where(sql`${t.lastSelectedTeam}`),
  ],
);
