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
import {
  DEVICE_DATA_MESSAGES,
  OMRON_UNITS,
  kgToLbs,
  type OmronBloodPressureReading,
  type OmronWeightReading,
} from '@trialpulse/shared/device-data/device-data.schemas';
import {
  DebouncedSearchField,
  dataTableDefaults,
  downloadCsv,
  usePersistedTableState,
} from '@/components/data-table';

type Row = {
  dateTimeLocal: string;
  systolic?: number;
  diastolic?: number;
  pulse?: number | null;
  weightLbs?: number;
  deviceType: string | null;
};

/**
 * The Omron readings as a table with the app's table features: page sizes 10–50, the
 * global filter, column selection (kept in local storage) and CSV export of the rows the
 * filter keeps.
 */
export function OmronReadingsTable({
  participantCode,
  bloodPressure,
  weight,
}: {
  participantCode: string;
  bloodPressure?: readonly OmronBloodPressureReading[];
  weight?: readonly OmronWeightReading[];
}) {
  const kind = weight ? 'weight' : 'bloodpressure';
  const rows = useMemo<Row[]>(
    () =>
      weight
        ? weight.map((r) => ({
            dateTimeLocal: r.dateTimeLocal.replace('T', ' '),
            weightLbs: kgToLbs(r.weight),
            deviceType: r.deviceType,
          }))
        : (bloodPressure ?? []).map((r) => ({
            dateTimeLocal: r.dateTimeLocal.replace('T', ' '),
            systolic: r.systolic,
            diastolic: r.diastolic,
            pulse: r.pulse,
            deviceType: r.deviceType,
          })),
    [bloodPressure, weight],
  );
  const columns = useMemo<MRT_ColumnDef<Row>[]>(
    () => [
      { accessorKey: 'dateTimeLocal', header: 'Date / time (local)' },
      ...(kind === 'weight'
        ? [
            {
              accessorKey: 'weightLbs',
              header: `Weight (${OMRON_UNITS.weight})`,
            } satisfies MRT_ColumnDef<Row>,
          ]
        : [
            {
              accessorKey: 'systolic',
              header: `Systolic (${OMRON_UNITS.pressure})`,
            } satisfies MRT_ColumnDef<Row>,
            {
              accessorKey: 'diastolic',
              header: `Diastolic (${OMRON_UNITS.pressure})`,
            } satisfies MRT_ColumnDef<Row>,
            {
              accessorKey: 'pulse',
              header: `Pulse (${OMRON_UNITS.pulse})`,
            } satisfies MRT_ColumnDef<Row>,
          ]),
      { accessorKey: 'deviceType', header: 'Device' },
    ],
    [kind],
  );
  const persisted = usePersistedTableState(
    `omron-${kind}`,
    columns.map((column) => String(column.accessorKey)),
  );
  const table = useMaterialReactTable({
    ...dataTableDefaults<Row>(),
    ...persisted.tableOptions,
    columns,
    data: rows,
    state: persisted.state,
    localization: { noRecordsToDisplay: DEVICE_DATA_MESSAGES.noData },
    muiTableBodyRowProps: () => ({ 'data-testid': 'omron-reading-row' }) as TableRowProps,
    renderTopToolbarCustomActions: ({ table: instance }) => (
      // Wraps below the search field on a phone instead of running under the table's icons;
      // from 600 px up it stays beside the field (a wrapping row put it below at 1440 px).
      <Stack
        direction="row"
        useFlexGap
        sx={{ flexWrap: { xs: 'wrap', sm: 'nowrap' }, alignItems: 'center', gap: 1.5, minWidth: 0 }}
      >
        <DebouncedSearchField
          value={persisted.globalFilter}
          onChange={persisted.setGlobalFilter}
          label="Search readings"
          testId="omron-search"
        />
        <Button
          startIcon={<FileDownloadOutlined />}
          sx={{ whiteSpace: 'nowrap', flexShrink: 0 }}
          data-testid="omron-export-csv"
          onClick={() => {
            const visible = instance.getVisibleLeafColumns();
            downloadCsv(
              `Omron-${participantCode}-${kind}`,
              visible.map((column) => String(column.columnDef.header)),
              instance
                .getPrePaginationRowModel()
                .rows.map((row) => visible.map((column) => row.getValue(column.id))),
            );
          }}
        >
          Export CSV
        </Button>
      </Stack>
    ),
  });
  return (
    <div data-testid="omron-readings-table">
      <MaterialReactTable table={table} />
    </div>
  );
}
