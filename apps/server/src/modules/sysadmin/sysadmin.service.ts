import type { BoundedPaged, ListQuery, SysAdminTableKey } from '@trialpulse/shared';
import type { SysAdminRepository } from './sysadmin.repository';

type Row = Record<string, unknown>;

/**
 * The Database Info page's read-only lists (device-data spec §2, §7), paged, sorted and
 * filtered on the server. Fields a participant's team hides are left out of its row.
 */
export function createSysAdminService(deps: { repository: SysAdminRepository }) {
  return {
    async page(
      key: SysAdminTableKey,
      query: ListQuery<string>,
      options: { teamId?: number } = {},
    ): Promise<BoundedPaged<Row>> {
      const page = await deps.repository.page<Row>(key, query, options);
      return { ...page, rows: page.rows.map(withoutHiddenFields) };
    },
  };
}

/** Drops the `hide:<field>` flags, and each field whose flag is set. */
function withoutHiddenFields(row: Row): Row {
  const result: Row = {};
  for (const [field, value] of Object.entries(row)) {
    if (field.startsWith('hide:')) continue;
    if (row[`hide:${field}`] === true) continue;
    result[field] = value;
  }
  return result;
}

export type SysAdminService = ReturnType<typeof createSysAdminService>;
