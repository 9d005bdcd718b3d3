import { useMemo } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { TableRowProps } from '@mui/material/TableRow';
import FileDownloadOutlined from '@mui/icons-material/FileDownloadOutlined';
import { type DeviceBrandName } from '@trialpulse/shared';
import {
  DEVICE_DATA_MESSAGES,
  STORED_READING_SORT_COLUMNS,
  storedReadingSchema,
  type StoredReadingRow,
} from '@trialpulse/shared/device-data/device-data.schemas';
import {
  DebouncedSearchField,
  dataTableDefaults,
  downloadCsv,
  useKeepPageInRange,
  usePersistedTableState,
  useServerList,
} from '@/components/data-table';
import { BRAND_PATH, METRIC_UNITS } from '../utils/brands';

const local = (row: StoredReadingRow) => {
  if (row.utcOffsetMinutes === null) return '';
  return new Date(Date.parse(row.recordedAt) + row.utcOffsetMinutes * 60_000)
    .toISOString()
    .slice(0, 19)
    .replace('T', ' ');
};

/**
 * The participant's stored readings of one brand, paged on the server (decision 0040):
 * newest first, sortable by time, metric and value, the global filter, column selection,
 * and CSV export of the visible page. `provenance` adds the sync columns (raw pages).
 */
export function StoredReadingsTable({
  participantId,
  participantCode,
  brand,
  provenance = false,
}: {
  participantId: number;
  participantCode: string;
  brand: DeviceBrandName;
  provenance?: boolean;
}) {
  const columns = useMemo<MRT_ColumnDef<StoredReadingRow>[]>(
    () => [
      {
        id: 'recordedAt',
        accessorFn: (row) => row.recordedAt.slice(0, 19).replace('T', ' '),
        header: 'Recorded (UTC)',
      },
      { id: 'local', accessorFn: local, header: 'Local time', enableSorting: false },
      { id: 'metricKey', accessorKey: 'metricKey', header: 'Metric' },
      { id: 'value', accessorFn: (row) => (row.value === null ? '' : row.value), header: 'Value' },
      {
        id: 'unit',
        accessorFn: (row) => METRIC_UNITS[row.metricKey] ?? '',
        header: 'Unit',
        enableSorting: false,
      },
      {
        id: 'details',
        accessorFn: (row) => (row.valueJson === null ? '' : JSON.stringify(row.valueJson)),
        header: 'Details',
        enableSorting: false,
      },
      {
        id: 'dataSource',
        accessorFn: (row) => row.dataSource ?? '',
        header: 'Source',
        enableSorting: false,
      },
      ...(provenance
        ? [
            {
              id: 'upstream',
              accessorKey: 'upstream',
              header: 'Upstream',
              enableSorting: false,
            } satisfies MRT_ColumnDef<StoredReadingRow>,
            {
              id: 'syncRunId',
              accessorFn: (row) => row.syncRunId ?? '',
              header: 'Sync run',
              enableSorting: false,
            } satisfies MRT_ColumnDef<StoredReadingRow>,
            {
              id: 'syncedAt',
              accessorFn: (row) => row.syncedAt.slice(0, 19).replace('T', ' '),
              header: 'Synced (UTC)',
              enableSorting: false,
            } satisfies MRT_ColumnDef<StoredReadingRow>,
          ]
        : []),
    ],
    [provenance],
  );
  const tableId = `readings-${BRAND_PATH[brand]}${provenance ? '-raw' : ''}`;
  const persisted = usePersistedTableState(tableId, STORED_READING_SORT_COLUMNS);
  const list = useServerList({
    queryKey: ['participant-readings', participantId, brand],
    path: `/participantReadings/${participantId}/${BRAND_PATH[brand]}`,
    rowSchema: storedReadingSchema,
    persisted,
  });
  const table = useMaterialReactTable({
    ...dataTableDefaults<StoredReadingRow>(),
    ...persisted.tableOptions,
    ...list.tableOptions,
    columns,
    getRowId: (row) => `${row.metricKey}|${row.recordedAt}`,
    state: { ...persisted.state, ...list.state },
    localization: { noRecordsToDisplay: DEVICE_DATA_MESSAGES.noData },
    muiTableBodyRowProps: () =>
      ({ 'data-testid': `reading-row-${BRAND_PATH[brand]}` }) as TableRowProps,
    renderTopToolbarCustomActions: ({ table: instance }) => (
      // "Export CSV" on one line beside the search field (at 1440 px it broke in two,
      // issue 30); on a phone the button wraps below the search field instead of running
      // under the table's icons (a wrapping row on a wide screen put it below as well).
      <Stack
        direction="row"
        useFlexGap
        sx={{ flexWrap: { xs: 'wrap', sm: 'nowrap' }, alignItems: 'center', gap: 1.5, minWidth: 0 }}
      >
        <DebouncedSearchField
          value={persisted.globalFilter}
          onChange={persisted.setGlobalFilter}
          label="Search readings"
          testId={`readings-search-${BRAND_PATH[brand]}`}
        />
        <Button
          startIcon={<FileDownloadOutlined />}
          sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
          data-testid={`readings-export-${BRAND_PATH[brand]}`}
          onClick={() => {
            const visible = instance.getVisibleLeafColumns();
            downloadCsv(
              `${brand}-${participantCode}`,
              visible.map((column) => String(column.columnDef.header)),
              instance
                .getRowModel()
                .rows.map((row) => visible.map((column) => row.getValue(column.id))),
            );
          }}
        >
          Export CSV
        </Button>
      </Stack>
    ),
  });
  useKeepPageInRange(table, list.query.isSuccess);
  return (
    <div data-testid={`readings-table-${BRAND_PATH[brand]}`}>
      <MaterialReactTable table={table} />
    </div>
  );
}
