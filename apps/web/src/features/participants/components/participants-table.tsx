import { useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { Link as RouterLink, useNavigate } from 'react-router';
import {
  MaterialReactTable,
  useMaterialReactTable,
  type MRT_ColumnDef,
  type MRT_RowSelectionState,
  type MRT_Updater,
} from 'material-react-table';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import IconButton from '@mui/material/IconButton';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import type { TableRowProps } from '@mui/material/TableRow';
import AddIcon from '@mui/icons-material/Add';
import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import EditOutlined from '@mui/icons-material/EditOutlined';
import {
  GENERIC_ERROR_MESSAGE,
  LIMITS,
  PARTICIPANT_MESSAGES,
  participantSchema,
  type Trial,
} from '@trialpulse/shared';
import {
  DebouncedSearchField,
  dataTableDefaults,
  useKeepPageInRange,
  usePersistedTableState,
  useServerList,
} from '@/components/data-table';
import { userMessage } from '@/lib/api-client';
import { useCan } from '@/lib/session';
import { participantsQueryKey, type Participant } from '../api/get-participants';
import { PARTICIPANT_PATHS, participantsTableId } from '../utils/paths';
import { useVisibleParticipantFields } from '../utils/visible-fields';
import { DeleteParticipantDialog } from './delete-participant-dialog';
import { EditParticipantDialog } from './edit-participant-dialog';

type Modal =
  | { kind: 'none' }
  | { kind: 'editParticipant'; participant: Participant }
  | { kind: 'deleteParticipant'; participant: Participant };

const COLUMN_IDS = [
  'participant_code',
  'actions',
  'deviceStatus',
  'email',
  'gender',
  'age',
  'notes',
];

/**
 * The device status column, filled by the devices feature and composed in by the route
 * (features never import each other): `Provider` wraps the table and runs the status
 * checks of the rows, `Cell` renders one row's status.
 */
export type DeviceStatusSlot = {
  Provider: ComponentType<{
    participants: readonly Participant[];
    trial: Trial;
    children: ReactNode;
  }>;
  Cell: ComponentType<{ participant: Participant }>;
};

type ParticipantsTableProps = {
  trial: Trial;
  /** The device status column; left out without it, and for Viewers (the server refuses them). */
  deviceStatus?: DeviceStatusSlot;
  /** Most rows selectable at once: 10 on /TrialPage, 4 in the older table (spec §9). */
  selectionCap?: number;
  /** Session-storage id of the saved page, sort and filter (`tp.table.<id>`). */
  tableId?: string;
};

/**
 * A trial's participants (access spec §2): code, email (when the team shows emails),
 * gender, age, notes (unless hidden), device status (`deviceStatus`, not for Viewers). Add New
 * Participant, Edit Participant (exactly one row selected), a Manage Participant link and
 * delete per row for Sys_Admin, Admin and User (§6); the server repeats every check.
 */
export function ParticipantsTable({
  trial,
  deviceStatus,
  selectionCap = LIMITS.multiRowSelectionCap,
  tableId = participantsTableId(trial.trialId),
}: ParticipantsTableProps) {
  const navigate = useNavigate();
  const { showEmail, showNotes } = useVisibleParticipantFields();
  const persisted = usePersistedTableState(tableId, COLUMN_IDS);
  // Only the page the table shows comes from the server (decision 0040).
  const list = useServerList({
    queryKey: participantsQueryKey(trial.trialId),
    path: `/trialParticipants/${trial.trialId}`,
    rowSchema: participantSchema,
    persisted,
  });
  const participants = list.query;
  const [rowSelection, setRowSelection] = useState<MRT_RowSelectionState>({});
  const [picked, setPicked] = useState<Record<string, Participant>>({});
  const [modal, setModal] = useState<Modal>({ kind: 'none' });
  const closeModal = () => setModal({ kind: 'none' });

  const canEdit = useCan('participant.update');
  const statusSlot = canEdit ? deviceStatus : undefined;
  const selectedIds = Object.keys(rowSelection).filter((id) => rowSelection[id]);
  // Selected rows may sit on other pages: each is kept as it was when it was selected.
  const selected = selectedIds.flatMap((id) => picked[id] ?? []);
  const capReached = selectedIds.length >= selectionCap;

  const onRowSelectionChange = (updater: MRT_Updater<MRT_RowSelectionState>) => {
    const next = typeof updater === 'function' ? updater(rowSelection) : updater;
    if (Object.values(next).filter(Boolean).length > selectionCap) return;
    const onPage = new Map(list.tableOptions.data.map((row) => [String(row.id), row]));
    setPicked(
      Object.fromEntries(
        Object.keys(next)
          .filter((id) => next[id])
          .flatMap((id) => {
            const row = picked[id] ?? onPage.get(id);
            return row ? [[id, row]] : [];
          }),
      ),
    );
    setRowSelection(next);
  };

  const columns = useMemo<MRT_ColumnDef<Participant>[]>(
    () => [
      { accessorKey: 'participant_code', header: 'Code', size: 130 },
      // Next to the code, so the row's actions are in view whatever the width of the page.
      ...(canEdit
        ? [
            {
              id: 'actions',
              header: 'Actions',
              size: 210,
              enableSorting: false,
              enableGlobalFilter: false,
              enableHiding: false,
              enableColumnActions: false,
              Cell: ({ row }) => (
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <Link
                    component={RouterLink}
                    to={PARTICIPANT_PATHS.participant}
                    state={{ participant: row.original, trial }}
                    data-testid={`participant-manage-${row.original.id}`}
                    onClick={(event) => event.stopPropagation()}
                  >
                    Manage Participant
                  </Link>
                  <Tooltip title="Delete participant">
                    <IconButton
                      size="small"
                      color="error"
                      aria-label={`Delete participant ${row.original.participant_code}`}
                      data-testid={`participant-delete-${row.original.id}`}
                      onClick={(event) => {
                        event.stopPropagation();
                        setModal({ kind: 'deleteParticipant', participant: row.original });
                      }}
                    >
                      <DeleteOutlined fontSize="small" />
                    </IconButton>
                  </Tooltip>
                </Stack>
              ),
            } satisfies MRT_ColumnDef<Participant>,
          ]
        : []),
      ...(statusSlot
        ? [
            {
              id: 'deviceStatus',
              header: 'Device Status',
              size: 280,
              muiTableBodyCellProps: { sx: { whiteSpace: 'nowrap' } },
              enableSorting: false,
              enableGlobalFilter: false,
              Cell: ({ row }) => (
                <Box data-testid={`participant-device-status-${row.original.id}`}>
                  <statusSlot.Cell participant={row.original} />
                </Box>
              ),
            } satisfies MRT_ColumnDef<Participant>,
          ]
        : []),
      ...(showEmail
        ? [
            {
              id: 'email',
              accessorFn: (participant) => participant.email ?? '',
              header: 'Email',
              Cell: ({ cell }) => <EllipsisText text={cell.getValue<string>()} maxWidth={200} />,
            } satisfies MRT_ColumnDef<Participant>,
          ]
        : []),
      { accessorKey: 'gender', header: 'Gender', size: 100 },
      {
        id: 'age',
        accessorFn: (participant) => (participant.age === null ? '' : String(participant.age)),
        header: 'Age',
        size: 90,
        sortingFn: 'alphanumeric',
      },
      ...(showNotes
        ? [
            {
              id: 'notes',
              accessorFn: (participant) => participant.notes ?? '',
              header: 'Notes',
              Cell: ({ cell }) => <EllipsisText text={cell.getValue<string>()} maxWidth={180} />,
            } satisfies MRT_ColumnDef<Participant>,
          ]
        : []),
    ],
    [showEmail, showNotes, canEdit, trial, statusSlot],
  );

  const table = useMaterialReactTable({
    ...dataTableDefaults<Participant>(),
    ...persisted.tableOptions,
    ...list.tableOptions,
    columns,
    getRowId: (participant) => String(participant.id),
    enableRowSelection: (row) => row.getIsSelected() || !capReached,
    enableMultiRowSelection: true,
    enableSelectAll: false,
    onRowSelectionChange,
    state: { ...persisted.state, ...list.state, rowSelection },
    localization: {
      noRecordsToDisplay: PARTICIPANT_MESSAGES.noParticipants,
      noResultsFound: PARTICIPANT_MESSAGES.noParticipants,
    },
    muiTableBodyRowProps: ({ row }) =>
      ({ 'data-testid': `participant-row-${row.original.id}` }) as TableRowProps,
    renderTopToolbarCustomActions: () => (
      // One row that wraps, left-aligned, each label on one line (issue 30: at 1440 px the
      // labels broke in two, at 390 px a centred column of unequal buttons zigzagged).
      <Stack
        direction="row"
        useFlexGap
        sx={{
          flexWrap: 'wrap',
          alignItems: 'center',
          gap: 1.5,
          '& .MuiButton-root': { whiteSpace: 'nowrap', flexShrink: 0 },
          '& > .MuiTextField-root': { flex: { xs: '1 1 100%', sm: '0 1 320px' } },
        }}
      >
        <DebouncedSearchField
          value={persisted.globalFilter}
          onChange={persisted.setGlobalFilter}
          label="Search participants"
          testId="participants-search"
        />
        {canEdit && (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => void navigate(PARTICIPANT_PATHS.addParticipant, { state: { trial } })}
            data-testid="add-participant-button"
          >
            Add New Participant
          </Button>
        )}
        {canEdit && (
          <Button
            variant="outlined"
            startIcon={<EditOutlined />}
            disabled={selected.length !== 1}
            onClick={() => {
              const [participant] = selected;
              if (participant) setModal({ kind: 'editParticipant', participant });
            }}
            data-testid="edit-participant-button"
          >
            Edit Participant
          </Button>
        )}
        {/* Every role views data: the selected participants go on to /ParticipantsDataPage. */}
        <Button
          variant="outlined"
          disabled={selected.length === 0}
          onClick={() =>
            void navigate(PARTICIPANT_PATHS.participantsData, {
              state: { participants: selected, trial },
            })
          }
          data-testid="view-participants-data-button"
        >
          View Data
        </Button>
        {/* One selected participant: straight to their Fitbit data page. */}
        <Button
          variant="outlined"
          disabled={selected.length !== 1}
          onClick={() =>
            void navigate(PARTICIPANT_PATHS.fitbitParticipantData, {
              state: { participant: selected[0], trial },
            })
          }
          data-testid="view-fitbit-data-button"
        >
          Fitbit Data
        </Button>
      </Stack>
    ),
  });
  useKeepPageInRange(table, participants.isSuccess);
  // The device status cycle covers the page the table shows, not the whole trial (and not
  // the placeholder rows of a table still loading).
  const visibleRows = participants.isSuccess
    ? table.getRowModel().rows.map((row) => row.original)
    : [];

  return (
    <Stack spacing={2} data-testid="participants-table" data-selection-cap={selectionCap}>
      {participants.isError && (
        <Alert severity="error" data-testid="participants-error">
          {userMessage(participants.error, GENERIC_ERROR_MESSAGE)}
        </Alert>
      )}
      {capReached && (
        <Typography variant="body2" color="text.secondary" data-testid="participants-selection-cap">
          At most {selectionCap} participants can be selected at once.
        </Typography>
      )}
      {statusSlot ? (
        <statusSlot.Provider participants={visibleRows} trial={trial}>
          <MaterialReactTable table={table} />
        </statusSlot.Provider>
      ) : (
        <MaterialReactTable table={table} />
      )}
      {modal.kind === 'editParticipant' && (
        <EditParticipantDialog
          participant={modal.participant}
          trialId={trial.trialId}
          onClose={closeModal}
        />
      )}
      {modal.kind === 'deleteParticipant' && (
        <DeleteParticipantDialog
          participant={modal.participant}
          trialId={trial.trialId}
          onClose={closeModal}
          onDeleted={() => {
            const id = String(modal.participant.id);
            setRowSelection(({ [id]: _removed, ...rest }) => rest);
            closeModal();
          }}
        />
      )}
    </Stack>
  );
}

/** One line of long text, cut with an ellipsis; the whole text shows on hover. */
function EllipsisText({ text, maxWidth }: { text: string; maxWidth: number }) {
  return (
    <Box
      component="span"
      title={text}
      sx={{
        display: 'block',
        maxWidth,
        overflow: 'hidden',
        textOverflow: 'ellipsis',
        whiteSpace: 'nowrap',
      }}
    >
      {text}
    </Box>
  );
}
