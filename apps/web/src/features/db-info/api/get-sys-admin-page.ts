import { keepPreviousData, useQuery } from '@tanstack/react-query';
import {
  SYS_ADMIN_TABLES,
  boundedPagedSchema,
  type BoundedPaged,
  type ListQueryParams,
  type SysAdminTableKey,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type SysAdminRow = Record<string, unknown>;

/**
 * `GET /api/sysAdmin*Data` (Sys_Admin): one page of a Database Info table, paged, sorted
 * and filtered on the server (decisions 0040, 0031).
 */
export async function getSysAdminPage(
  key: SysAdminTableKey,
  params: ListQueryParams,
  signal?: AbortSignal,
): Promise<BoundedPaged<SysAdminRow>> {
  const table = SYS_ADMIN_TABLES.find((entry) => entry.key === key)!;
  const body = await api.get<unknown>(table.path, { query: params, signal });
  return boundedPagedSchema(table.row).parse(body) as BoundedPaged<SysAdminRow>;
}

export function useSysAdminPage(key: SysAdminTableKey, params: ListQueryParams) {
  return useQuery({
    queryKey: ['sys-admin-page', key, params],
    queryFn: ({ signal }) => getSysAdminPage(key, params, signal),
    // The old page stays on screen while the next one loads.
    placeholderData: keepPreviousData,
  });
}
