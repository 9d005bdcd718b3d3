import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgEnum,
  pgTable,
  text,
  unique,
} from 'drizzle-orm/pg-core';
import {
  METRIC_DEVICE_TYPES,
  type MetricDeviceType,
} from '@trialpulse/shared/metrics/metric-catalog';
import { createdAt, identityId, oneOf, timestamptz, updatedAt } from './columns';
import { participants } from './participants';
import { oneTimeTokens } from './auth';
import { users } from './users';
import { teams } from './teams';

/** Supported brands (access spec §1). */
export const deviceBrandEnum = pgEnum('device_brand', ['Fitbit', 'Omron', 'Dexcom']);
export type DeviceBrand = (typeof deviceBrandEnum.enumValues)[number];

/**
 * Device types of the global catalog; the metric catalog is keyed by them.
 * TRACKER and SCALE are Fitbit's own device types (the spec's deviceType); the others are
 * ours, brand-qualified because their metric lists differ from Fitbit's.
 */
export const DEVICE_TYPES = METRIC_DEVICE_TYPES;
export type DeviceType = MetricDeviceType;

/**
 * Where a connection's data comes from. The Fitbit brand has two upstreams: the retired
 * Fitbit Web API and the Google Health API that replaced it (tokens do not transfer).
 */
export const DEVICE_UPSTREAMS = ['google-health', 'fitbit-legacy', 'omron', 'dexcom'] as const;
export type DeviceUpstream = (typeof DEVICE_UPSTREAMS)[number];

/**
 * Where a stored reading comes from: a connection's upstream, or `demo` for the readings the
 * demo seeds without any provider (decision 0186), so no seeded row claims a provider.
 */
export const READING_UPSTREAMS = [...DEVICE_UPSTREAMS, 'demo'] as const;
export type ReadingUpstream = (typeof READING_UPSTREAMS)[number];

export const AUTHORIZATION_STATUSES = ['pending', 'authorized', 'revoked', 'error'] as const;
export type AuthorizationStatus = (typeof AUTHORIZATION_STATUSES)[number];

/** Brands a team may use; they decide which device sections the participant page shows. */
export const teamAllowedBrands = pgTable(
  'team_allowed_brands',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    brandName: deviceBrandEnum('brand_name').notNull(),
    isActive: boolean('is_active').notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [unique('team_allowed_brands_team_brand_unique').on(t.teamId, t.brandName)],
);

/** Global device catalog (not tenant-owned; maintained by the system administrator). */
export const globalDeviceCatalog = pgTable(
  'global_device_catalog',
  {
    id: identityId(),
    manufacturer: deviceBrandEnum('manufacturer').notNull(),
    /** Null or empty: the device has no metric catalog (spec: "Device Settings" mode). */
    deviceType: text('device_type'),
    deviceName: text('device_name').notNull(),
    context: text('context'),
    description: text('description'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('global_device_catalog_device_name_unique').on(t.deviceName),
    index('global_device_catalog_device_type_idx').on(t.deviceType),
  ],
);

/** Catalog devices a team supports. `(id, team_id)` unique for team-safe child references. */
export const teamSupportedDevices = pgTable(
  'team_supported_devices',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    globalDeviceCatalogId: integer('global_device_catalog_id')
      .notNull()
      .references(() => globalDeviceCatalog.id, { onDelete: 'restrict' }),
    isActive: boolean('is_active').notNull().default(true),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('team_supported_devices_team_device_unique').on(t.teamId, t.globalDeviceCatalogId),
    unique('team_supported_devices_id_team_id_unique').on(t.id, t.teamId),
    index('team_supported_devices_global_device_catalog_id_idx').on(t.globalDeviceCatalogId),
  ],
);

/**
 * A participant's authorised device connection. Provider tokens are AES-256-GCM encrypted
 * (lib/crypto) and never leave the server. `invalid_grant` sets needs_reconsent; data is
 * never deleted because of it.
 */
export const participantDevices = pgTable(
  'participant_devices',
  {
    id: identityId(),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    participantId: integer('participant_id').notNull(),
    globalDeviceCatalogId: integer('global_device_catalog_id')
      .notNull()
      .references(() => globalDeviceCatalog.id, { onDelete: 'restrict' }),
    upstream: text('upstream', { enum: DEVICE_UPSTREAMS }).notNull(),
    /** The provider's id of the account (Fitbit user_id, Dexcom userId, ...). */
    providerUserId: text('provider_user_id'),
    accessTokenEncrypted: text('access_token_encrypted'),
    refreshTokenEncrypted: text('refresh_token_encrypted'),
    tokenExpiresAt: timestamptz('token_expires_at'),
    scopes: text('scopes')
      .array()
      .notNull()
      .default(sql`ARRAY[]::text[]`),
    authorizationStatus: text('authorization_status', { enum: AUTHORIZATION_STATUSES })
      .notNull()
      .default('pending'),
    authorizationDate: timestamptz('authorization_date'),
    needsReconsent: boolean('needs_reconsent').notNull().default(false),
    /** When the tokens were last refreshed; concurrent refreshers use it to skip a second call. */
    lastRefreshedAt: timestamptz('last_refreshed_at'),
    lastSyncAt: timestamptz('last_sync_at'),
    lastSyncError: text('last_sync_error'),
    notes: text('notes'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    unique('participant_devices_participant_device_unique').on(
      t.participantId,
      t.globalDeviceCatalogId,
    ),
    index('participant_devices_team_id_idx').on(t.teamId),
    index('participant_devices_participant_id_team_id_idx').on(t.participantId, t.teamId),
    index('participant_devices_global_device_catalog_id_idx').on(t.globalDeviceCatalogId),
    foreignKey({
      name: 'participant_devices_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
    check('participant_devices_upstream_known', oneOf(t.upstream, DEVICE_UPSTREAMS)),
    check(
      'participant_devices_authorization_status_known',
      oneOf(t.authorizationStatus, AUTHORIZATION_STATUSES),
    ),
  ],
);

/**
 * A connection's device list as last read from the provider (battery, version, last sync,
 * or the error entry of a failed read), written by every device-list read: the trial
 * table's status cycle answers from it and reads the provider again only when it is older
 * than the cycle (decision 0041); the completeness grid takes battery and last upload from
 * it (decisions 0050, 0027). Owned by the devices module.
 */
export const participantDeviceStatus = pgTable(
  'participant_device_status',
  {
    participantDeviceId: integer('participant_device_id')
      .primaryKey()
      .references(() => participantDevices.id, { onDelete: 'cascade' }),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    /** The spec's authorised device entries (`AuthorisedDeviceEntry[]`). */
    devices: jsonb('devices').notNull(),
    checkedAt: timestamptz('checked_at').notNull(),
  },
  (t) => [index('participant_device_status_team_id_idx').on(t.teamId)],
);

/** Who started an authorisation: staff with the participant present, an emailed consent link, or the participant's own account. */
export const AUTHORIZATION_ORIGINS = ['staff', 'consent_link', 'portal'] as const;
export type AuthorizationOrigin = (typeof AUTHORIZATION_ORIGINS)[number];

/**
 * A started provider authorisation. The OAuth `state` sent to the provider is random and
 * stored only as a hash; the callback must present it within the lifetime, once. The PKCE
 * code verifier is encrypted like the tokens.
 */
export const deviceAuthorizationRequests = pgTable(
  'device_authorization_requests',
  {
    id: identityId(),
    stateHash: text('state_hash')
      .notNull()
      .unique('device_authorization_requests_state_hash_unique'),
    teamId: integer('team_id')
      .notNull()
      .references(() => teams.id, { onDelete: 'restrict' }),
    participantId: integer('participant_id').notNull(),
    brand: deviceBrandEnum('brand').notNull(),
    upstream: text('upstream', { enum: DEVICE_UPSTREAMS }).notNull(),
    codeVerifierEncrypted: text('code_verifier_encrypted'),
    origin: text('origin', { enum: AUTHORIZATION_ORIGINS }).notNull(),
    initiatedByUserId: integer('initiated_by_user_id').references(() => users.id, {
      onDelete: 'set null',
    }),
    consentTokenId: integer('consent_token_id').references(() => oneTimeTokens.id, {
      onDelete: 'set null',
    }),
    createdAt: createdAt(),
    expiresAt: timestamptz('expires_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (t) => [
    index('device_authorization_requests_participant_idx').on(t.participantId, t.teamId),
    index('device_authorization_requests_team_id_idx').on(t.teamId),
    index('device_authorization_requests_expires_at_idx').on(t.expiresAt),
    index('device_authorization_requests_initiated_by_idx').on(t.initiatedByUserId),
    index('device_authorization_requests_consent_token_idx').on(t.consentTokenId),
    foreignKey({
      name: 'device_authorization_requests_participant_fk',
      columns: [t.participantId, t.teamId],
      foreignColumns: [participants.id, participants.teamId],
    }).onDelete('cascade'),
    check('device_authorization_requests_upstream_known', oneOf(t.upstream, DEVICE_UPSTREAMS)),
    check('device_authorization_requests_origin_known', oneOf(t.origin, AUTHORIZATION_ORIGINS)),
  ],
);
