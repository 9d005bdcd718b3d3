import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
} from 'material-react-table';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import type { TableRowProps } from '@mui/material/TableRow';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { GENERIC_ERROR_MESSAGE, PATHS, trialSchema } from '@trialpulse/shared';
import {
  DebouncedSearchField,
  STORAGE_KEYS,
  dataTableDefaults,
  rememberOpenedRow,
  useKeepPageInRange,
  usePersistedTableState,
  useServerList,
} from '@/components/data-table';
import { useCan } from '@/lib/session';
import { trialsQueryKey, userTrialsPath, type Trial } from '@/lib/api/trials';
import { trialErrorMessage } from '../utils/trial-error-message';
import { DeleteTrialDialog } from './delete-trial-dialog';
import { TrialFormDialog } from './trial-form-dialog';

/** Which trial modal is open (access spec §4: none, addTrial, editTrial, deleteTrial). */
export type TrialModal =
  | { kind: 'none' }
  | { kind: 'addTrial' }
  | { kind: 'editTrial'; trial: Trial }
  | { kind: 'deleteTrial'; trial: Trial };

const TABLE_ID = 'trials';
const COLUMN_IDS = ['trialNumber', 'trialName', 'trialNotes', 'actions', 'trialOwnerEmail'];

/**
 * The trials table of the dashboard and of /Trials (access spec §2): Trial Number, Trial
 * Name, Notes, action icons, Trial Owner's Email; a row opens /TrialPage with the trial in
 * the navigation state (and in local storage, for a reload). New Trial and delete for
 * Sys_Admin and Admin, edit also for User (§6); the server repeats every check.
 */
export function TrialsTable() {
  const navigate = useNavigate();
  const persisted = usePersistedTableState(TABLE_ID, COLUMN_IDS);
  // Only the page the table shows comes from the server (decision 0040).
  const list = useServerList({
    queryKey: trialsQueryKey,
    path: userTrialsPath,
    rowSchema: trialSchema,
    persisted,
  });
  const trials = list.query;
  const [modal, setModal] = useState<TrialModal>({ kind: 'none' });
  const closeModal = () => setModal({ kind: 'none' });

  const canAdd = useCan('trial.create');
  const canDelete = useCan('trial.delete');
  const canEdit = useCan('trial.update');

  const columns = useMemo<MRT_ColumnDef<Trial>[]>(
    () => [
      { accessorKey: 'trialNumber', header: 'Trial Number', size: 140 },
      { accessorKey: 'trialName', header: 'Trial Name' },
      {
        accessorKey: 'trialNotes',
        header: 'Notes',
        Cell: ({ cell }) => (
          <Box
            component="span"
            title={cell.getValue<string>()}
            sx={{
              display: 'block',
              maxWidth: 320,
              overflow: 'hidden',
              textOverflow: 'ellipsis',
              whiteSpace: 'nowrap',
            }}
          >
            {cell.getValue<string>()}
          </Box>
        ),
      },
      ...(canEdit || canDelete
        ? [
            {
              id: 'actions',
              header: 'Actions',
              size: 110,
              enableSorting: false,
              enableGlobalFilter: false,
              enableHiding: false,
              enableColumnActions: false,
              Cell: ({ row }) => (
                <Stack direction="row" spacing={0.5}>
                  {canEdit && (
                    <Tooltip title="Edit trial">
                      <IconButton
                        size="small"
                        aria-label={`Edit trial ${row.original.trialNumber}`}
                        data-testid={`trial-row-edit-${row.original.trialId}`}
                        onClick={(event) => {
                          event.stopPropagation();
                          setModal({ kind: 'editTrial', trial: row.original });
                        }}
                      >
                        <EditOutlined fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  )}
                  {canDelete && (
                    <Tooltip title="Delete trial">
                      <IconButton
                        size="small"
                        color="error"
                        aria-label={`Delete trial ${row.original.trialNumber}`}
                        data-testid={`trial-row-delete-${row.original.trialId}`}
                        onClick={(event) => {
                          event.stopPropagation();
                          setModal({ kind: 'deleteTrial', trial: row.original });
                        }}
                      >
                        <DeleteOutlined fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  )}
                </Stack>
              ),
            } satisfies MRT_ColumnDef<Trial>,
          ]
        : []),
      {
        id: 'trialOwnerEmail',
        accessorFn: (trial) => trial.trialOwnerEmail ?? '',
        header: "Trial Owner's Email",
      },
    ],
    [canEdit, canDelete],
  );

  const openTrial = (trial: Trial) => {
    rememberOpenedRow(STORAGE_KEYS.currentTrial, trial);
    void navigate(PATHS.trialPage, { state: { trial } });
  };

  const table = useMaterialReactTable({
    ...dataTableDefaults<Trial>(),
    ...persisted.tableOptions,
    ...list.tableOptions,
    columns,
    getRowId: (trial) => String(trial.trialId),
    state: { ...persisted.state, ...list.state },
    localization: { noRecordsToDisplay: 'No trials found.', noResultsFound: 'No trials found.' },
    muiTableBodyRowProps: ({ row }) =>
      ({
        hover: true,
        tabIndex: 0,
        sx: { cursor: 'pointer' },
        'data-testid': `trial-row-${row.original.trialId}`,
        onClick: () => openTrial(row.original),
        onKeyDown: (event) => {
          if (event.key === 'Enter' && event.target === event.currentTarget) {
            openTrial(row.original);
          }
        },
      }) as TableRowProps,
    renderTopToolbarCustomActions: () => (
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5} sx={{ alignItems: 'center' }}>
        <DebouncedSearchField
          value={persisted.globalFilter}
          onChange={persisted.setGlobalFilter}
          label="Search trials"
          testId="trials-search"
        />
        {canAdd && (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setModal({ kind: 'addTrial' })}
            data-testid="new-trial-button"
          >
            New Trial
          </Button>
        )}
      </Stack>
    ),
  });
  useKeepPageInRange(table, trials.isSuccess);

  return (
    <Stack spacing={2} data-testid="trials-table">
      {trials.isError && (
        <Alert severity="error" data-testid="trials-error">
          {trialErrorMessage(trials.error, GENERIC_ERROR_MESSAGE)}
        </Alert>
      )}
      <MaterialReactTable table={table} />
      {modal.kind === 'addTrial' && <TrialFormDialog onClose={closeModal} />}
      {modal.kind === 'editTrial' && <TrialFormDialog trial={modal.trial} onClose={closeModal} />}
      {modal.kind === 'deleteTrial' && (
        <DeleteTrialDialog trial={modal.trial} onClose={closeModal} />
      )}
    </Stack>
  );
}
