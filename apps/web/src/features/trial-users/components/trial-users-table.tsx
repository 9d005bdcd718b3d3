import { useMemo } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Tooltip from '@mui/material/Tooltip';
import PersonAddOutlined from '@mui/icons-material/PersonAddOutlined';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import { dataTableDefaults } from '@/components/data-table';
import type { TrialUser } from '../api/get-trial-users';

type TrialUsersTableProps = {
  users: TrialUser[];
  isLoading: boolean;
  onAdd: () => void;
  onDelete: (user: TrialUser) => void;
};

/** The users of a trial: id, email, and delete — the owner row says Trial Owner instead. */
export function TrialUsersTable({ users, isLoading, onAdd, onDelete }: TrialUsersTableProps) {
  const columns = useMemo<MRT_ColumnDef<TrialUser>[]>(
    () => [
      { accessorKey: 'id', header: 'User Id', size: 100 },
      { accessorKey: 'email', header: 'Email' },
      {
        id: 'actions',
        header: 'Delete',
        size: 120,
        enableSorting: false,
        enableGlobalFilter: false,
        enableHiding: false,
        enableColumnActions: false,
        Cell: ({ row }) =>
          row.original.isOwner ? (
            <Chip
              label="Trial Owner"
              size="small"
              variant="outlined"
              data-testid={`trial-owner-${row.original.id}`}
            />
          ) : (
            <Tooltip title="Remove from trial">
              <IconButton
                size="small"
                color="error"
                aria-label={`Delete user ${row.original.email}`}
                data-testid={`trial-user-delete-${row.original.id}`}
                onClick={() => onDelete(row.original)}
              >
                <DeleteOutlined fontSize="small" />
              </IconButton>
            </Tooltip>
          ),
      },
    ],
    [onDelete],
  );

  const table = useMaterialReactTable({
    ...dataTableDefaults<TrialUser>(),
    enableGlobalFilter: false,
    columns,
    data: users,
    getRowId: (user) => String(user.id),
    state: { isLoading },
    localization: { noRecordsToDisplay: 'No users found for this trial.' },
    renderTopToolbarCustomActions: () => (
      <Button
        variant="contained"
        startIcon={<PersonAddOutlined />}
        onClick={onAdd}
        data-testid="add-trial-user-button"
      >
        Add User
      </Button>
    ),
  });

  return (
    <Box data-testid="trial-users-table">
      <MaterialReactTable table={table} />
    </Box>
  );
}
