export { STORAGE_KEYS, readStoredJson, writeStoredJson } from './browser-storage';
export { DebouncedSearchField } from './debounced-search-field';
export {
  columnVisibilitySchema,
  parseColumnVisibility,
  parseSavedTableState,
  savedTableStateSchema,
  type ColumnVisibility,
  type SavedTableState,
} from './saved-table-state';
export { dataTableDefaults } from './table-options';
export {
  useKeepPageInRange,
  usePersistedTableState,
  type PersistedTableState,
} from './use-persisted-table-state';
export { rememberOpenedRow, useOpenedRow } from './use-opened-row';
export { fetchListPage, serverTableOptions, useServerList } from './use-server-list';
export { downloadCsv, toCsv } from './export-csv';
