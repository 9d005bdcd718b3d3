import { useMemo } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import dayjs from 'dayjs';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import AddOutlined from '@mui/icons-material/AddOutlined';
import BlockOutlined from '@mui/icons-material/BlockOutlined';
import type { BackendClient } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { dataTableDefaults } from '@/components/data-table';

type BackendClientsTableProps = {
  clients: BackendClient[];
  isLoading: boolean;
  onRegister: () => void;
  onRevoke: (client: BackendClient) => void;
};

const when = (instant: string) => dayjs(instant).format('YYYY-MM-DD HH:mm');

/**
 * The team's backend clients: name, client id, allowed scopes, created, revoked (or a
 * Revoke button while active). Newest first, as the server lists them.
 */
export function BackendClientsTable({
  clients,
  isLoading,
  onRegister,
  onRevoke,
}: BackendClientsTableProps) {
  const columns = useMemo<MRT_ColumnDef<BackendClient>[]>(
    () => [
      { accessorKey: 'name', header: 'Name' },
      {
        accessorKey: 'clientId',
        header: 'Client ID',
        Cell: ({ row }) => (
          <Box
            component="code"
            sx={{ fontSize: '0.85rem', wordBreak: 'break-all' }}
            data-testid={`backend-client-id-${row.original.id}`}
          >
            {row.original.clientId}
          </Box>
        ),
      },
      {
        id: 'scopes',
        header: 'Scopes',
        accessorFn: (client) => client.scopes.join(' '),
        Cell: ({ row }) => (
          <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 0.5 }}>
            {row.original.scopes.map((scope) => (
              <Chip key={scope} label={scope} size="small" variant="outlined" />
            ))}
          </Stack>
        ),
      },
      {
        id: 'createdAt',
        header: 'Created',
        accessorFn: (client) => client.createdAt,
        Cell: ({ row }) => (
          <time dateTime={row.original.createdAt}>{when(row.original.createdAt)}</time>
        ),
      },
      {
        id: 'revokedAt',
        header: 'Revoked',
        accessorFn: (client) => client.revokedAt ?? '',
        enableGlobalFilter: false,
        Cell: ({ row }) =>
          row.original.revokedAt ? (
            <time
              dateTime={row.original.revokedAt}
              data-testid={`backend-client-revoked-${row.original.id}`}
            >
              {when(row.original.revokedAt)}
            </time>
          ) : (
            <Button
              size="small"
              color="error"
              variant="outlined"
              startIcon={<BlockOutlined />}
              aria-label={`Revoke ${row.original.name}`}
              data-testid={`backend-client-revoke-${row.original.id}`}
              onClick={() => onRevoke(row.original)}
            >
              Revoke
            </Button>
          ),
      },
    ],
    [onRevoke],
  );

  const table = useMaterialReactTable({
    ...dataTableDefaults<BackendClient>(),
    enableGlobalFilter: false,
    columns,
    data: clients,
    getRowId: (client) => String(client.id),
    state: { isLoading },
    localization: { noRecordsToDisplay: 'No pipeline clients registered yet.' },
    renderTopToolbarCustomActions: () => (
      <Button
        variant="contained"
        startIcon={<AddOutlined />}
        onClick={onRegister}
        data-testid="register-backend-client-button"
      >
        Register Client
      </Button>
    ),
  });

  return (
    <Box data-testid="backend-clients-table">
      <MaterialReactTable table={table} />
    </Box>
  );
}
