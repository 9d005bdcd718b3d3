import { useMemo, useState } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
  type MRT_TableInstance,
} from 'material-react-table';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { TableRowProps } from '@mui/material/TableRow';
import FileDownloadOutlined from '@mui/icons-material/FileDownloadOutlined';
import { LIMITS } from '@trialpulse/shared';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  DebouncedSearchField,
  dataTableDefaults,
  downloadCsv,
  usePersistedTableState,
} from '@/components/data-table';
import { downloadXlsx } from '../../common/utils/export-xlsx';
import type { ViewColumn, ViewRow } from '../utils/fitbit-views';

/**
 * A Fitbit data table (device-data §2): Columns Selection (kept in local storage), a filter
 * per column and the global search, page sizes 10–50, and CSV and XLSX export of the rows
 * the filters keep, in the columns shown.
 */
export function FitbitDataTable({
  tableId,
  storageId,
  fileName,
  columns,
  rows,
}: {
  /** Test ids. */
  tableId: string;
  /** Where column selection and paging are remembered (one per kind of table). */
  storageId: string;
  fileName: string;
  columns: readonly ViewColumn[];
  rows: readonly ViewRow[];
}) {
  const [exporting, setExporting] = useState(false);
  const columnDefs = useMemo<MRT_ColumnDef<ViewRow>[]>(
    () =>
      columns.map((column) => ({
        id: column.key,
        accessorFn: (row) => row[column.key] ?? null,
        header: column.header,
        filterFn: 'contains',
      })),
    [columns],
  );
  const persisted = usePersistedTableState(
    `fitbit-${storageId}`,
    columns.map((column) => column.key),
  );
  const data = useMemo(() => [...rows], [rows]);

  const exportRows = (instance: MRT_TableInstance<ViewRow>) => {
    const visible = instance
      .getVisibleLeafColumns()
      .filter((column) => !column.id.startsWith('mrt-'));
    return {
      headers: visible.map((column) => String(column.columnDef.header)),
      rows: instance
        .getPrePaginationRowModel()
        .rows.map((row) => visible.map((column) => row.getValue(column.id) as unknown)),
    };
  };

  const table = useMaterialReactTable({
    ...dataTableDefaults<ViewRow>(),
    ...persisted.tableOptions,
    columns: columnDefs,
    data,
    state: persisted.state,
    enableColumnFilters: true,
    enableFacetedValues: false,
    initialState: { showGlobalFilter: true, showColumnFilters: false },
    muiPaginationProps: { rowsPerPageOptions: [...LIMITS.tablePageSizes] },
    localization: {
      noRecordsToDisplay: FITBIT_DATA_MESSAGES.noData,
      showHideColumns: 'Columns Selection',
    },
    muiTableBodyRowProps: () => ({ 'data-testid': `${tableId}-row` }) as TableRowProps,
    renderTopToolbarCustomActions: ({ table: instance }) => (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <DebouncedSearchField
          value={persisted.globalFilter}
          onChange={persisted.setGlobalFilter}
          label="Search"
          testId={`${tableId}-search`}
        />
        <Button
          size="small"
          startIcon={<FileDownloadOutlined />}
          data-testid={`${tableId}-export-csv`}
          onClick={() => {
            const { headers, rows: lines } = exportRows(instance);
            downloadCsv(fileName, headers, lines);
          }}
        >
          CSV
        </Button>
        <Button
          size="small"
          startIcon={<FileDownloadOutlined />}
          disabled={exporting}
          data-testid={`${tableId}-export-xlsx`}
          onClick={() => {
            const { headers, rows: lines } = exportRows(instance);
            setExporting(true);
            void downloadXlsx(fileName, [{ name: fileName, headers, rows: lines }]).finally(() =>
              setExporting(false),
            );
          }}
        >
          XLSX
        </Button>
      </Stack>
    ),
  });
  return (
    <div data-testid={tableId}>
      <MaterialReactTable table={table} />
    </div>
  );
}
