import { useEffect, useState } from 'react';
import type {
  MRT_PaginationState,
  MRT_RowData,
  MRT_SortingState,
  MRT_TableInstance,
  MRT_Updater,
  MRT_VisibilityState,
} from 'material-react-table';
import { LIMITS } from '@trialpulse/shared';
import { STORAGE_KEYS, readStoredJson, writeStoredJson } from './browser-storage';
import { parseColumnVisibility, parseSavedTableState } from './saved-table-state';

export type PersistedTableState = ReturnType<typeof usePersistedTableState>;

/**
 * The controlled state of a material-react-table that outlives the page: page, page size,
 * sort and global filter in session storage under `tp.table.<tableId>` (restored only when
 * the saved value passes the spec's rules), column visibility in local storage under
 * `tp.dashboard.columnVisibility.<tableId>`. Spread `tableOptions` into
 * `useMaterialReactTable` and merge `state` with the table's own state.
 *
 * `columnIds` drops saved sorts on columns the table no longer has.
 */
export function usePersistedTableState(tableId: string, columnIds?: readonly string[]) {
  const stateKey = STORAGE_KEYS.tableState(tableId);
  const visibilityKey = STORAGE_KEYS.columnVisibility(tableId);
  const [initial] = useState(() => {
    const saved = parseSavedTableState(readStoredJson('session', stateKey));
    return {
      pagination: {
        pageIndex: saved?.pageIndex ?? 0,
        pageSize: saved?.pageSize ?? LIMITS.tableDefaultPageSize,
      },
      sorting: (saved?.sorting ?? []).filter((sort) => !columnIds || columnIds.includes(sort.id)),
      globalFilter: saved?.globalFilter ?? '',
      columnVisibility: parseColumnVisibility(readStoredJson('local', visibilityKey)) ?? {},
    };
  });
  const [pagination, setPagination] = useState<MRT_PaginationState>(initial.pagination);
  const [sorting, setSorting] = useState<MRT_SortingState>(initial.sorting);
  const [globalFilter, setGlobalFilterValue] = useState<string>(initial.globalFilter);
  const [columnVisibility, setColumnVisibility] = useState<MRT_VisibilityState>(
    initial.columnVisibility,
  );

  useEffect(() => {
    writeStoredJson('session', stateKey, {
      pageIndex: pagination.pageIndex,
      pageSize: pagination.pageSize,
      sorting: sorting.map(({ id, desc }) => ({ id, desc })),
      globalFilter,
    });
  }, [stateKey, pagination, sorting, globalFilter]);

  useEffect(() => {
    writeStoredJson('local', visibilityKey, columnVisibility);
  }, [visibilityKey, columnVisibility]);

  const toFirstPage = () => setPagination((current) => ({ ...current, pageIndex: 0 }));

  /** A new filter or sort starts again on the first page. */
  const setGlobalFilter = (value: string) => {
    setGlobalFilterValue(value);
    toFirstPage();
  };

  return {
    globalFilter,
    setGlobalFilter,
    state: { pagination, sorting, globalFilter, columnVisibility },
    tableOptions: {
      // The restored page must survive the first data load; filter and sort reset it here.
      autoResetPageIndex: false,
      onPaginationChange: (updater: MRT_Updater<MRT_PaginationState>) => setPagination(updater),
      onSortingChange: (updater: MRT_Updater<MRT_SortingState>) => {
        setSorting(updater);
        toFirstPage();
      },
      onGlobalFilterChange: (updater: MRT_Updater<string | undefined>) => {
        setGlobalFilterValue(
          (current) => (typeof updater === 'function' ? updater(current) : updater) ?? '',
        );
        toFirstPage();
      },
      onColumnVisibilityChange: (updater: MRT_Updater<MRT_VisibilityState>) =>
        setColumnVisibility(updater),
    },
  };
}

/**
 * Moves a restored page that lies past the end (fewer rows than last time) back to the last
 * page once the rows are known.
 */
export function useKeepPageInRange<TData extends MRT_RowData>(
  table: MRT_TableInstance<TData>,
  rowsKnown: boolean,
) {
  const pageCount = table.getPageCount();
  const { pageIndex } = table.getState().pagination;
  useEffect(() => {
    if (rowsKnown && pageIndex > 0 && pageIndex >= pageCount) {
      table.setPageIndex(Math.max(0, pageCount - 1));
    }
  }, [table, rowsKnown, pageIndex, pageCount]);
}
