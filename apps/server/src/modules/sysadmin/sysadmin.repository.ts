import { and, asc, sql, type SQL } from 'drizzle-orm';
import type { BoundedPaged, ListQuery, SysAdminTableKey } from '@trialpulse/shared';
import type { Db } from '../../db/client';
import { defineList, selectBoundedPage } from '../../lib/paging';

/**
 * The ten read-only lists of the Database Info page as SQL over our tables (the only code
 * of the sysadmin module that touches tables). Each column is listed once as
 * `field: expression`; the select list, sorting and the global filter all come from it.
 * A hidden participant field is NULL in the expression (so neither shown, sorted nor
 * matched by the filter) and left out of the row by the service.
 */
type ListSpec = {
  from: string;
  key: string;
  /** The counted table when every join is one-to-one with it (paging estimate). */
  table?: string;
  columns: Record<string, string>;
  /** Fields the row's team hides: field → condition, selected as `hide:<field>`. */
  hides?: Record<string, string>;
};

const iso = (column: string) => `to_json(${column})#>>'{}'`;
const hidden = (field: 'email' | 'notes', column: string, teamAlias = 't') =>
  `CASE WHEN '${field}' = ANY(${teamAlias}.hidden_fields) THEN NULL ELSE ${column} END`;

const LISTS: Record<SysAdminTableKey, ListSpec> = {
  teams: {
    table: 'teams',
    from: 'teams t',
    key: 't.id',
    columns: {
      team_id: 't.id',
      team_name: 't.team_name',
      is_active: 't.is_active',
      subscription_starts: iso('t.subscription_starts'),
      subscription_ends: iso('t.subscription_ends'),
      subscription_type: 't.subscription_type',
      max_users: 't.max_users',
      actual_num_of_users: 't.actual_num_of_users',
      max_trials: 't.max_trials',
      actual_num_of_trials: 't.actual_num_of_trials',
      max_participants: 't.max_participants',
      actual_num_of_participants: 't.actual_num_of_participants',
      team_admin_email: 't.team_admin_email',
      team_admin_phone: 't.team_admin_phone',
      organization: 't.organization',
      notes: 't.notes',
      monthly_rate_per_participant: 't.monthly_rate_per_participant::float8',
      retention_days: 't.retention_days',
      storage_location: 't.storage_location',
    },
  },
  teamAllowedBrands: {
    table: 'team_allowed_brands',
    from: 'team_allowed_brands b JOIN teams t ON t.id = b.team_id',
    key: 'b.id',
    columns: {
      team_id: 'b.team_id',
      team_name: 't.team_name',
      brand_name: 'b.brand_name::text',
      is_active: 'b.is_active',
    },
  },
  teamSupportedDevices: {
    table: 'team_supported_devices',
    from: 'team_supported_devices d JOIN teams t ON t.id = d.team_id JOIN global_device_catalog g ON g.id = d.global_device_catalog_id',
    key: 'd.id',
    columns: {
      id: 'd.id',
      team_id: 'd.team_id',
      team_name: 't.team_name',
      global_device_catalog_id: 'd.global_device_catalog_id',
      device_name: 'g.device_name',
      device_type: 'g.device_type',
      is_active: 'd.is_active',
      notes: 'd.notes',
    },
  },
  teamUserMappings: {
    table: 'team_user_mappings',
    from: 'team_user_mappings m JOIN users u ON u.id = m.user_id JOIN teams t ON t.id = m.team_id',
    key: 'm.id',
    columns: {
      user_id: 'm.user_id',
      team_id: 'm.team_id',
      username: 'u.username',
      email: 'u.email',
      first_name: 'u.first_name',
      last_name: 'u.last_name',
      team_name: 't.team_name',
      // The spec's stored copies; we keep names once, so they equal the current ones.
      user_name: 'u.username',
      team_name_stored: 't.team_name',
      role: 'm.role::text',
      default_team: 'm.default_team',
      last_selected_team: 'm.last_selected_team',
    },
  },
  teamDataStorageSettings: {
    table: 'team_device_data_storage_settings',
    from: `team_device_data_storage_settings s JOIN teams t ON t.id = s.team_id
      JOIN team_supported_devices d ON d.id = s.team_supported_device_id
      JOIN global_device_catalog g ON g.id = d.global_device_catalog_id`,
    key: 's.id',
    columns: {
      id: 's.id',
      team_id: 's.team_id',
      team_name: 't.team_name',
      team_supported_device_id: 's.team_supported_device_id',
      metric_key: 's.metric_key',
      metric_name: 's.metric_name',
      is_enabled: 's.is_enabled',
      device_metrics: 'g.device_name',
    },
  },
  users: {
    // Staff accounts; the team is the default team (else the first one joined).
    from: `users u LEFT JOIN LATERAL (
        SELECT t.team_name FROM team_user_mappings m JOIN teams t ON t.id = m.team_id
        WHERE m.user_id = u.id ORDER BY m.default_team DESC, m.id LIMIT 1
      ) ut ON true`,
    key: 'u.id',
    columns: {
      user_id: 'u.id',
      team_name: 'ut.team_name',
      first_name: 'u.first_name',
      last_name: 'u.last_name',
      email: 'u.email',
      is_active: 'u.is_active',
      sfa_required: 'u.sfa_required',
      sfa_enabled: 'u.sfa_enabled',
      sfa_type: 'u.sfa_type',
      create_time: iso('u.create_time'),
      organization: 'u.organization',
    },
  },
  trials: {
    table: 'trials',
    from: 'trials r JOIN teams t ON t.id = r.team_id LEFT JOIN users o ON o.id = r.owner_user_id',
    key: 'r.id',
    columns: {
      trial_id: 'r.id',
      trial_name: 'r.trial_name',
      trial_number: 'r.trial_number',
      trial_notes: 'r.trial_notes',
      owner_email: 'o.email',
      the_team_id: 'r.team_id',
      team_name: 't.team_name',
      creation_date: iso('r.creation_date'),
    },
  },
  participants: {
    table: 'participants',
    from: 'participants p JOIN teams t ON t.id = p.team_id JOIN trials r ON r.id = p.trial_id',
    key: 'p.id',
    columns: {
      participant_id: 'p.id',
      the_team_id: 'p.team_id',
      team_name: 't.team_name',
      trial_id: 'p.trial_id',
      trial_name: 'r.trial_name',
      trial_number: 'r.trial_number',
      email: hidden('email', 'p.email'),
      gender: 'p.gender',
      age: 'p.age',
      notes: hidden('notes', 'p.notes'),
    },
    hides: { email: "'email' = ANY(t.hidden_fields)", notes: "'notes' = ANY(t.hidden_fields)" },
  },
  participantDevices: {
    table: 'participant_devices',
    from: `participant_devices pd JOIN participants p ON p.id = pd.participant_id
      JOIN teams t ON t.id = pd.team_id JOIN global_device_catalog g ON g.id = pd.global_device_catalog_id`,
    key: 'pd.id',
    columns: {
      participant_id: 'pd.participant_id',
      participant_email: hidden('email', 'p.email'),
      team_name: 't.team_name',
      global_device_catalog_id: 'pd.global_device_catalog_id',
      device_name: 'g.device_name',
      device_type: 'g.device_type',
      manufacturer: 'g.manufacturer::text',
      authorization_status: 'pd.authorization_status',
      authorization_date: iso('pd.authorization_date'),
      created_at: iso('pd.created_at'),
      updated_at: iso('pd.updated_at'),
      notes: 'pd.notes',
    },
    hides: { participant_email: "'email' = ANY(t.hidden_fields)" },
  },
  globalDeviceCatalog: {
    table: 'global_device_catalog',
    from: 'global_device_catalog g',
    key: 'g.id',
    columns: {
      id: 'g.id',
      manufacturer: 'g.manufacturer::text',
      device_type: 'g.device_type',
      device_name: 'g.device_name',
      context: 'g.context',
      description: 'g.description',
      created_at: iso('g.created_at'),
      updated_at: iso('g.updated_at'),
    },
  },
};

/** Fixed conditions of a list: the user table shows staff accounts only. */
const FIXED_WHERE: Partial<Record<SysAdminTableKey, string>> = {
  users: "u.account_type = 'staff'",
};

/** The team column of the lists that can be narrowed to one team. */
const TEAM_COLUMN: Partial<Record<SysAdminTableKey, string>> = {
  teamSupportedDevices: 'd.team_id',
};

/** Sorting and the global filter of a list: every column, then the list's key. */
export function listDefinition(key: SysAdminTableKey) {
  const spec = LISTS[key];
  const columns = Object.fromEntries(
    Object.entries(spec.columns).map(([field, expression]) => [field, sql.raw(expression)]),
  );
  return defineList<string>({
    sortable: columns,
    searchable: Object.values(columns),
    defaultOrder: [asc(sql.raw(spec.key))],
  });
}

export function createSysAdminRepository(db: Db) {
  return {
    /**
     * One page of a list (every row without a page); `teamId` narrows the lists that have a
     * team column. Counted up to PAGING.exactCountLimit (lib/paging selectBoundedPage).
     */
    page<TRow>(key: SysAdminTableKey, query: ListQuery<string>, options: { teamId?: number } = {}) {
      const spec = LISTS[key];
      const fields: Record<string, SQL> = Object.fromEntries([
        ...Object.entries(spec.columns).map(([field, expression]) => [field, sql.raw(expression)]),
        ...Object.entries(spec.hides ?? {}).map(([field, condition]) => [
          `hide:${field}`,
          sql.raw(`(${condition})`),
        ]),
      ]);
      const scope: SQL[] = [];
      if (FIXED_WHERE[key]) scope.push(sql.raw(FIXED_WHERE[key]!));
      if (options.teamId !== undefined && TEAM_COLUMN[key]) {
        scope.push(sql`${sql.raw(TEAM_COLUMN[key]!)} = ${options.teamId}`);
      }
      const page = selectBoundedPage(
        db,
        query,
        listDefinition(key),
        (filter) =>
          db
            .select(fields)
            .from(sql.raw(spec.from))
            .where(and(...scope, filter))
            .$dynamic(),
        { countTable: scope.length === 0 ? spec.table : undefined },
      );
      return page as Promise<BoundedPaged<TRow>>;
    },
  };
}

export type SysAdminRepository = ReturnType<typeof createSysAdminRepository>;
