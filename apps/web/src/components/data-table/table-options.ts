import type { MRT_RowData, MRT_TableOptions } from 'material-react-table';
import { LIMITS } from '@trialpulse/shared';

/**
 * Options every material-react-table of the app shares: the spec's page sizes (§9), only
 * the global search (no per-column filters), and the app's own debounced search box in
 * the toolbar instead of the table's (`DebouncedSearchField`).
 */
export function dataTableDefaults<TData extends MRT_RowData>(): Partial<MRT_TableOptions<TData>> {
  return {
    enableColumnFilters: false,
    enableFullScreenToggle: false,
    enableDensityToggle: false,
    enableGlobalFilterRankedResults: false,
    globalFilterFn: 'contains',
    positionGlobalFilter: 'none',
    muiPaginationProps: { rowsPerPageOptions: [...LIMITS.tablePageSizes] },
    initialState: { showGlobalFilter: true },
  };
}
