import { keepPreviousData, useQuery } from '@tanstack/react-query';
import type { MRT_RowData, MRT_TableOptions } from 'material-react-table';
import type { z } from 'zod';
import {
  pagedSchema,
  toListQueryParams,
  type ListQueryParams,
  type Paged,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import type { PersistedTableState } from './use-persisted-table-state';

/**
 * One page of a server-paged list call (decision 0040): `GET path?pageIndex&pageSize&sortBy&
 * sortDir&filter` answers `{ rows, total }`. The answer is checked against `rowSchema`.
 */
export async function fetchListPage<TRow>(
  path: string,
  rowSchema: z.ZodType<TRow>,
  params: ListQueryParams,
  signal?: AbortSignal,
): Promise<Paged<TRow>> {
  const body = await api.get<unknown>(path, { query: params, signal });
  return pagedSchema(rowSchema).parse(body) as Paged<TRow>;
}

/**
 * Options that hand a material-react-table's paging, sorting and global filter to the
 * server: the table shows `page.rows` as they come and counts pages from `page.total`.
 * Sorting is on one column at a time (the server sorts by one column).
 */
export function serverTableOptions<TData extends MRT_RowData>(
  page: Paged<TData> | undefined,
): Partial<MRT_TableOptions<TData>> & { data: TData[] } {
  return {
    data: page?.rows ?? [],
    rowCount: page?.total ?? 0,
    manualPagination: true,
    manualSorting: true,
    manualFiltering: true,
    enableMultiSort: false,
  };
}

/**
 * The visible page of a server-paged table: fetches only the page, sort and filter in
 * `persisted` (the table's saved state), keeps the previous page on screen while the next
 * loads, and gives the table options to spread into `useMaterialReactTable`:
 *
 * ```tsx
 * const persisted = usePersistedTableState('trials', COLUMN_IDS);
 * const list = useServerList({ queryKey: trialsQueryKey, path: '/userTrials/', rowSchema: trialSchema, persisted });
 * const table = useMaterialReactTable({
 *   ...dataTableDefaults<Trial>(), ...persisted.tableOptions, ...list.tableOptions, columns,
 *   state: { ...persisted.state, ...list.state },
 * });
 * useKeepPageInRange(table, list.query.isSuccess);
 * ```
 *
 * The query key is `[...queryKey, params]`, so invalidating `queryKey` refetches every page.
 */
export function useServerList<TRow extends MRT_RowData>(options: {
  queryKey: readonly unknown[];
  path: string;
  rowSchema: z.ZodType<TRow>;
  persisted: Pick<PersistedTableState, 'state'>;
  enabled?: boolean;
}) {
  const { pagination, sorting, globalFilter } = options.persisted.state;
  const params = toListQueryParams({ ...pagination, sorting, globalFilter });
  const query = useQuery({
    queryKey: [...options.queryKey, params],
    queryFn: ({ signal }) => fetchListPage(options.path, options.rowSchema, params, signal),
    placeholderData: keepPreviousData,
    enabled: options.enabled,
  });
  return {
    query,
    params,
    tableOptions: serverTableOptions(query.data),
    state: { isLoading: query.isPending, showProgressBars: query.isFetching && !query.isPending },
  };
}
