import { useMemo, useState } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { TableRowProps } from '@mui/material/TableRow';
import type { DeviceBrandName, DeviceConnection } from '@trialpulse/shared';
import { DebouncedSearchField, dataTableDefaults } from '@/components/data-table';
import { CONNECTION_STATUS_LABELS, UPSTREAM_LABELS, formatDateTime } from '../utils/device-labels';

type DeviceConnectionsTableProps = {
  brand: DeviceBrandName;
  connections: DeviceConnection[];
  isLoading: boolean;
  /** The row whose action is running: its buttons are disabled. */
  busyParticipantId: number | null;
  onRefresh: (connection: DeviceConnection) => void;
  onRevoke: (connection: DeviceConnection) => void;
};

/**
 * A team's connections of one brand: participant code, trial number, status, upstream
 * (Fitbit), authorisation date, token expiry, last refresh, and Refresh / Revoke.
 */
export function DeviceConnectionsTable({
  brand,
  connections,
  isLoading,
  busyParticipantId,
  onRefresh,
  onRevoke,
}: DeviceConnectionsTableProps) {
  const [globalFilter, setGlobalFilter] = useState('');
  const columns = useMemo<MRT_ColumnDef<DeviceConnection>[]>(
    () => [
      // First, so Refresh and Revoke are in view whatever the width of the page.
      {
        id: 'actions',
        header: 'Actions',
        size: 190,
        enableSorting: false,
        enableGlobalFilter: false,
        enableHiding: false,
        enableColumnActions: false,
        Cell: ({ row }) => {
          const connection = row.original;
          const busy = busyParticipantId === connection.participantId;
          const code = connection.participantCode;
          return (
            <Stack direction="row" spacing={1}>
              <Button
                size="small"
                variant="outlined"
                disabled={busy || connection.status !== 'authorized'}
                aria-label={`Refresh ${code}`}
                onClick={() => onRefresh(connection)}
              >
                Refresh
              </Button>
              <Button
                size="small"
                variant="outlined"
                color="error"
                disabled={
                  busy ||
                  (connection.status !== 'authorized' && connection.status !== 'needs_reconsent')
                }
                aria-label={`Revoke ${code}`}
                onClick={() => onRevoke(connection)}
              >
                Revoke
              </Button>
            </Stack>
          );
        },
      },
      { accessorKey: 'participantCode', header: 'Participant Code', size: 130 },
      { accessorKey: 'trialNumber', header: 'Trial Number', size: 130 },
      {
        id: 'status',
        accessorFn: (connection) => CONNECTION_STATUS_LABELS[connection.status],
        header: 'Status',
        size: 130,
      },
      ...(brand === 'Fitbit'
        ? [
            {
              id: 'upstream',
              accessorFn: (connection) =>
                connection.upstream ? UPSTREAM_LABELS[connection.upstream] : '',
              header: 'Upstream',
              size: 180,
            } satisfies MRT_ColumnDef<DeviceConnection>,
          ]
        : []),
      {
        id: 'authorizationDate',
        accessorFn: (connection) => formatDateTime(connection.authorizationDate),
        header: 'Authorization Date',
        size: 150,
      },
      {
        id: 'tokenExpiresAt',
        accessorFn: (connection) => formatDateTime(connection.tokenExpiresAt),
        header: 'Token Expiry',
        size: 150,
      },
      {
        id: 'lastRefreshedAt',
        accessorFn: (connection) => formatDateTime(connection.lastRefreshedAt),
        header: 'Last Refresh',
        size: 150,
      },
    ],
    [brand, busyParticipantId, onRefresh, onRevoke],
  );

  const table = useMaterialReactTable({
    ...dataTableDefaults<DeviceConnection>(),
    columns,
    data: connections,
    getRowId: (connection) => String(connection.participantId),
    state: { isLoading, globalFilter },
    onGlobalFilterChange: (value) => setGlobalFilter(value ?? ''),
    localization: { noRecordsToDisplay: `No ${brand} connections in this team.` },
    muiTableBodyRowProps: ({ row }) =>
      ({ 'data-testid': `device-connection-row-${row.original.participantId}` }) as TableRowProps,
    renderTopToolbarCustomActions: () => (
      <DebouncedSearchField
        value={globalFilter}
        onChange={setGlobalFilter}
        label="Search connections"
        testId="device-connections-search"
      />
    ),
  });

  return (
    <Box data-testid="device-connections-table">
      <MaterialReactTable table={table} />
    </Box>
  );
}
