import { z } from 'zod';

/**
 * The ten read-only tables of the Database Info page (device-data spec §2, fields §3, calls
 * §7), each from its own GET endpoint, paged on the server (paging/paging.schemas.ts).
 * Dates are ISO 8601 text. Fields a team hides (email, notes) are left out of its rows.
 */
const int = z.number().int();
const text = z.string().nullable();
const date = z.string().nullable();

export const sysAdminTeamRowSchema = z.object({
  team_id: int,
  team_name: z.string(),
  is_active: z.boolean(),
  subscription_starts: date,
  subscription_ends: date,
  subscription_type: text,
  max_users: int.nullable(),
  actual_num_of_users: int,
  max_trials: int.nullable(),
  actual_num_of_trials: int,
  max_participants: int.nullable(),
  actual_num_of_participants: int,
  team_admin_email: text,
  team_admin_phone: text,
  organization: text,
  notes: text,
  monthly_rate_per_participant: z.number().nullable(),
  retention_days: int.nullable(),
  storage_location: text,
});

export const sysAdminTeamAllowedBrandRowSchema = z.object({
  team_id: int,
  team_name: z.string(),
  brand_name: z.string(),
  is_active: z.boolean(),
});

export const sysAdminTeamSupportedDeviceRowSchema = z.object({
  id: int,
  team_id: int,
  team_name: z.string(),
  global_device_catalog_id: int,
  device_name: z.string(),
  device_type: text,
  is_active: z.boolean(),
  notes: text,
});

export const sysAdminTeamUserMappingRowSchema = z.object({
  user_id: int,
  team_id: int,
  username: z.string(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  team_name: z.string(),
  user_name: z.string(),
  team_name_stored: z.string(),
  role: z.string(),
  default_team: z.boolean(),
  last_selected_team: z.boolean(),
});

export const sysAdminTeamDataStorageSettingRowSchema = z.object({
  id: int,
  team_id: int,
  team_name: z.string(),
  team_supported_device_id: int,
  metric_key: z.string(),
  metric_name: z.string(),
  is_enabled: z.boolean(),
  device_metrics: text,
});

export const sysAdminUserRowSchema = z.object({
  user_id: int,
  team_name: text,
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  is_active: z.boolean(),
  sfa_required: z.boolean(),
  sfa_enabled: z.boolean(),
  sfa_type: text,
  create_time: date,
  organization: text,
});

export const sysAdminTrialRowSchema = z.object({
  trial_id: int,
  trial_name: z.string(),
  trial_number: z.string(),
  trial_notes: text,
  owner_email: text,
  the_team_id: int,
  team_name: z.string(),
  creation_date: date,
});

export const sysAdminParticipantRowSchema = z.object({
  participant_id: int,
  the_team_id: int,
  team_name: z.string(),
  trial_id: int,
  trial_name: z.string(),
  trial_number: z.string(),
  /** Left out when the team hides email. */
  email: text.optional(),
  gender: text,
  age: int.nullable(),
  /** Left out when the team hides notes. */
  notes: text.optional(),
});

export const sysAdminParticipantDeviceRowSchema = z.object({
  participant_id: int,
  /** Left out when the team hides email. */
  participant_email: text.optional(),
  team_name: z.string(),
  global_device_catalog_id: int,
  device_name: z.string(),
  device_type: text,
  manufacturer: z.string(),
  authorization_status: z.string(),
  authorization_date: date,
  created_at: date,
  updated_at: date,
  notes: text,
});

export const sysAdminGlobalDeviceCatalogRowSchema = z.object({
  id: int,
  manufacturer: z.string(),
  device_type: text,
  device_name: z.string(),
  context: text,
  description: text,
  created_at: date,
  updated_at: date,
});

/**
 * The tables in the page's order: title (§2), API path (§7) and row schema. The row schema
 * keys are the columns, in order.
 */
export const SYS_ADMIN_TABLES = [
  { key: 'teams', title: 'Team Table', path: '/sysAdminTeamsData', row: sysAdminTeamRowSchema },
  {
    key: 'teamAllowedBrands',
    title: 'Team Allowed Brands',
    path: '/sysAdminTeamAllowedBrands',
    row: sysAdminTeamAllowedBrandRowSchema,
  },
  {
    key: 'teamSupportedDevices',
    title: 'Team Supported Devices',
    path: '/sysAdminTeamSupportedDevicesData',
    row: sysAdminTeamSupportedDeviceRowSchema,
  },
  {
    key: 'teamUserMappings',
    title: 'Team-User Mappings',
    path: '/sysAdminTeamUserMappings',
    row: sysAdminTeamUserMappingRowSchema,
  },
  {
    key: 'teamDataStorageSettings',
    title: 'Team Devices Data Storage Settings',
    path: '/sysAdminTeamDataStorageSettings',
    row: sysAdminTeamDataStorageSettingRowSchema,
  },
  { key: 'users', title: 'User Table', path: '/sysAdminUsersData', row: sysAdminUserRowSchema },
  { key: 'trials', title: 'Trial Table', path: '/sysAdminTrialsData', row: sysAdminTrialRowSchema },
  {
    key: 'participants',
    title: 'Participant Table',
    path: '/sysAdminParticipantsData',
    row: sysAdminParticipantRowSchema,
  },
  {
    key: 'participantDevices',
    title: 'Participant Devices Table',
    path: '/sysAdminParticipantDevicesData',
    row: sysAdminParticipantDeviceRowSchema,
  },
  {
    key: 'globalDeviceCatalog',
    title: 'Global Device Catalog Table',
    path: '/sysAdminGlobalDeviceCatalogData',
    row: sysAdminGlobalDeviceCatalogRowSchema,
  },
] as const;
export type SysAdminTableKey = (typeof SYS_ADMIN_TABLES)[number]['key'];

/** Column ids of a table, in order (for sorting and the web's columns). */
export function sysAdminColumns(key: SysAdminTableKey): string[] {
  const table = SYS_ADMIN_TABLES.find((entry) => entry.key === key)!;
  return Object.keys(table.row.shape);
}

/** Extra filter of the team supported devices list: one team's devices (manager's dropdown). */
export const sysAdminTeamDevicesQuerySchema = z.object({
  team_id: z.coerce.number().int().positive().max(2_147_483_647).optional(),
});
