import { useMemo, useState } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
  type MRT_PaginationState,
  type MRT_SortingState,
} from 'material-react-table';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  LIMITS,
  SYS_ADMIN_TABLES,
  sysAdminColumns,
  toListQueryParams,
  type SysAdminTableKey,
} from '@trialpulse/shared';
import {
  DebouncedSearchField,
  dataTableDefaults,
  serverTableOptions,
} from '@/components/data-table';
import { userMessage } from '@/lib/api-client';
import { useSysAdminPage, type SysAdminRow } from '../api/get-sys-admin-page';

/** 'team_name' → 'Team Name' (the §3 field names are the column names). */
export function columnHeader(field: string): string {
  return field
    .split('_')
    .map((word) => (word === 'id' ? 'ID' : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(' ');
}

function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}

/**
 * One read-only Database Info table: a row-number column and the table's §3 fields, 50 rows
 * per page and a global filter, all applied by the server (the table never holds more
 * than one page).
 */
export function SysAdminTable({ tableKey }: { tableKey: SysAdminTableKey }) {
  const table = SYS_ADMIN_TABLES.find((entry) => entry.key === tableKey)!;
  const [pagination, setPagination] = useState<MRT_PaginationState>({
    pageIndex: 0,
    pageSize: LIMITS.sysAdminTablePageSize,
  });
  const [sorting, setSorting] = useState<MRT_SortingState>([]);
  const [globalFilter, setGlobalFilter] = useState('');
  const page = useSysAdminPage(
    tableKey,
    toListQueryParams({ ...pagination, sorting, globalFilter }),
  );
  const total = page.data?.total ?? 0;
  const exact = page.data?.totalIsExact ?? true;

  const columns = useMemo<MRT_ColumnDef<SysAdminRow>[]>(
    () => [
      {
        id: 'row_number',
        header: '#',
        size: 60,
        enableSorting: false,
        enableHiding: false,
        enableColumnActions: false,
        Cell: ({ row }) => pagination.pageIndex * pagination.pageSize + row.index + 1,
      },
      ...sysAdminColumns(tableKey).map<MRT_ColumnDef<SysAdminRow>>((field) => ({
        id: field,
        header: columnHeader(field),
        accessorFn: (row) => cellText(row[field]),
      })),
    ],
    [tableKey, pagination.pageIndex, pagination.pageSize],
  );

  const mrt = useMaterialReactTable({
    ...dataTableDefaults<SysAdminRow>(),
    columns,
    ...serverTableOptions(page.data),
    state: {
      pagination,
      sorting,
      globalFilter,
      isLoading: page.isPending,
      showProgressBars: page.isFetching,
    },
    onPaginationChange: setPagination,
    onSortingChange: (updater) => {
      setSorting(updater);
      setPagination((current) => ({ ...current, pageIndex: 0 }));
    },
    initialState: { showGlobalFilter: true },
    muiPaginationProps: { rowsPerPageOptions: [LIMITS.sysAdminTablePageSize] },
    muiTableProps: { 'data-testid': `sys-admin-table-${tableKey}` } as object,
    localization: { noRecordsToDisplay: 'No rows found.', noResultsFound: 'No rows found.' },
    renderTopToolbarCustomActions: () => (
      <DebouncedSearchField
        value={globalFilter}
        onChange={(value) => {
          setGlobalFilter(value);
          setPagination((current) => ({ ...current, pageIndex: 0 }));
        }}
        label={`Search ${table.title}`}
        testId={`sys-admin-search-${tableKey}`}
      />
    ),
  });

  return (
    <Stack spacing={1} data-testid={`sys-admin-panel-${tableKey}`}>
      <Typography variant="h2" component="h2" sx={{ fontSize: '1.25rem' }}>
        {table.title}
      </Typography>
      {page.isError && (
        <Alert severity="error" data-testid="sys-admin-table-error">
          {userMessage(page.error, `Error: the ${table.title} could not be loaded.`)}
        </Alert>
      )}
      <MaterialReactTable table={mrt} />
      <Typography
        variant="body2"
        color="text.secondary"
        data-testid={`sys-admin-total-${tableKey}`}
      >
        {exact
          ? `${total.toLocaleString('en')} ${total === 1 ? 'row' : 'rows'}`
          : `More than ${(total - 1).toLocaleString('en')} rows`}
      </Typography>
    </Stack>
  );
}
