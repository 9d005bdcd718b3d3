import { useMemo, useState } from 'react';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import AddIcon from '@mui/icons-material/Add';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { LIMITS } from '@trialpulse/shared';
import { DebouncedSearchField, dataTableDefaults } from '@/components/data-table';
import { userMessage } from '@/lib/api-client';
import { useAdminTeams, type TeamRecord } from '../api/get-admin-teams';
import { TeamFormDialog } from './team-form-dialog';

type Modal = { kind: 'none' } | { kind: 'addTeam' } | { kind: 'editTeam'; team: TeamRecord };

/** Every team with its limits and usage; New Team and Edit Team (system-admin table: 50 rows). */
export function TeamsAdminTable() {
  const teams = useAdminTeams();
  const [modal, setModal] = useState<Modal>({ kind: 'none' });
  const [globalFilter, setGlobalFilter] = useState('');
  const close = () => setModal({ kind: 'none' });

  const columns = useMemo<MRT_ColumnDef<TeamRecord>[]>(
    () => [
      { accessorKey: 'team_id', header: 'Id', size: 70 },
      { accessorKey: 'team_name', header: 'Team' },
      {
        accessorKey: 'is_active',
        header: 'Active',
        size: 90,
        enableGlobalFilter: false,
        Cell: ({ row }) => (
          <Chip
            size="small"
            label={row.original.is_active ? 'Active' : 'Inactive'}
            color={row.original.is_active ? 'success' : 'default'}
            variant="outlined"
          />
        ),
      },
      {
        id: 'subscription',
        header: 'Subscription',
        accessorFn: (team) =>
          [
            team.subscription_type,
            [team.subscription_starts?.slice(0, 10), team.subscription_ends?.slice(0, 10)]
              .filter(Boolean)
              .join(' → '),
          ]
            .filter(Boolean)
            .join(', '),
      },
      {
        id: 'users',
        header: 'Users',
        size: 90,
        accessorFn: (team) => usage(team.actual_num_of_users, team.max_users),
      },
      {
        id: 'trials',
        header: 'Trials',
        size: 90,
        accessorFn: (team) => usage(team.actual_num_of_trials, team.max_trials),
      },
      {
        id: 'participants',
        header: 'Participants',
        size: 110,
        accessorFn: (team) => usage(team.actual_num_of_participants, team.max_participants),
      },
      { id: 'brands', header: 'Brands', accessorFn: (team) => team.allowed_brands.join(', ') },
      {
        id: 'team_admin_email',
        header: 'Admin Email',
        accessorFn: (team) => team.team_admin_email ?? '',
      },
      { id: 'organization', header: 'Organization', accessorFn: (team) => team.organization ?? '' },
      {
        id: 'edit',
        header: 'Edit',
        size: 70,
        enableSorting: false,
        enableGlobalFilter: false,
        enableHiding: false,
        enableColumnActions: false,
        Cell: ({ row }) => (
          <Tooltip title="Edit team">
            <IconButton
              size="small"
              aria-label={`Edit team ${row.original.team_name}`}
              data-testid={`team-row-edit-${row.original.team_id}`}
              onClick={() => setModal({ kind: 'editTeam', team: row.original })}
            >
              <EditOutlined fontSize="small" />
            </IconButton>
          </Tooltip>
        ),
      },
    ],
    [],
  );

  const table = useMaterialReactTable({
    ...dataTableDefaults<TeamRecord>(),
    columns,
    data: teams.data ?? [],
    getRowId: (team) => String(team.team_id),
    initialState: {
      showGlobalFilter: true,
      pagination: { pageIndex: 0, pageSize: LIMITS.sysAdminTablePageSize },
    },
    muiPaginationProps: { rowsPerPageOptions: [LIMITS.sysAdminTablePageSize] },
    state: { globalFilter, isLoading: teams.isPending },
    onGlobalFilterChange: (value) => setGlobalFilter(typeof value === 'string' ? value : ''),
    localization: { noRecordsToDisplay: 'No teams found.', noResultsFound: 'No teams found.' },
    renderTopToolbarCustomActions: () => (
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: 'center' }}>
        <DebouncedSearchField
          value={globalFilter}
          onChange={setGlobalFilter}
          label="Search teams"
          testId="teams-search"
        />
        <Button
          variant="contained"
          startIcon={<AddIcon />}
          onClick={() => setModal({ kind: 'addTeam' })}
          data-testid="new-team-button"
        >
          New Team
        </Button>
      </Stack>
    ),
  });

  return (
    <Stack spacing={2} data-testid="teams-admin-table">
      {teams.isError && (
        <Alert severity="error" data-testid="teams-admin-error">
          {userMessage(teams.error, 'Error: the teams could not be loaded.')}
        </Alert>
      )}
      <MaterialReactTable table={table} />
      {modal.kind === 'addTeam' && <TeamFormDialog onClose={close} />}
      {modal.kind === 'editTeam' && <TeamFormDialog team={modal.team} onClose={close} />}
    </Stack>
  );
}

function usage(actual: number, max: number | null): string {
  return max === null ? String(actual) : `${actual} / ${max}`;
}
