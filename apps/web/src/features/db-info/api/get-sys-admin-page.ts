import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  SYS_ADMIN_TABLES,
  pageQueryString,
  pagedSchema,
  type PageRequest,
  type Paged,
  type SysAdminTableKey,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type SysAdminRow = Record<string, unknown>;

/**
 * `GET /api/sysAdmin*Data` (Sys_Admin): one page of a Database Info table, paged, sorted
 * and filtered on the server (decision 0031).
 */
export async function getSysAdminPage(
  key: SysAdminTableKey,
  query: PageRequest,
): Promise<Paged<SysAdminRow>> {
  const table = SYS_ADMIN_TABLES.find((entry) => entry.key === key)!;
  const body = await api.get<unknown>(`${table.path}${pageQueryString(query)}`);
  return pagedSchema(table.row).parse(body) as Paged<SysAdminRow>;
}

export function useSysAdminPage(key: SysAdminTableKey, query: PageRequest) {
  return useQuery({
    queryKey: ['sys-admin-page', key, query],
    queryFn: () => getSysAdminPage(key, query),
    // The old page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
}
