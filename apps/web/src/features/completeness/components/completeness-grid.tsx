import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { useTheme } from '@mui/material/styles';
import {
  HEALTH_WARNING_LABELS,
  type CompletenessGrid as Grid,
  type CompletenessRow,
  type Participant,
  type RoutePath,
  type Trial,
} from '@trialpulse/shared';
import { DAY_STATE_LABELS, dayColor } from './day-colors';

/** The data pages a row links to, with the participant in navigation state (device-data spec §2). */
const DATA_PAGES: { brand: string; path: RoutePath; label: string }[] = [
  { brand: 'Fitbit', path: '/FitbitParticipantDataPage', label: 'Fitbit data' },
  { brand: 'Omron', path: '/OmronParticipantDataPage', label: 'Omron data' },
  { brand: 'Dexcom', path: '/ParticipantDataPage', label: 'Dexcom data' },
];

/**
 * Participants × days: one coloured square per day (its measures in the title), the
 * sync-health column in the warning colour when a connection needs re-consent, the battery
 * is empty or low, or sync is overdue, and the share of valid days.
 */
export function CompletenessGrid({
  grid,
  rows,
  trial,
  participants,
  highlightId,
}: {
  grid: Grid;
  rows: readonly CompletenessRow[];
  trial: Trial;
  participants: ReadonlyMap<number, Participant>;
  highlightId?: number;
}) {
  const theme = useTheme();
  const sticky = { position: 'sticky', left: 0, zIndex: 1, bgcolor: 'background.paper' } as const;
  return (
    <TableContainer sx={{ maxHeight: '70vh', border: 1, borderColor: 'divider', borderRadius: 1 }}>
      <Table size="small" stickyHeader data-testid="completeness-grid" sx={{ width: 'auto' }}>
        <TableHead>
          <TableRow>
            <TableCell sx={{ ...sticky, zIndex: 3 }}>Participant</TableCell>
            <TableCell>Sync health</TableCell>
            <TableCell align="right">Valid days</TableCell>
            {grid.days.map((day) => (
              <TableCell
                key={day}
                align="center"
                sx={{ px: 0.25, fontSize: 10, whiteSpace: 'nowrap' }}
                title={day}
              >
                {day.slice(8)}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {rows.map((row) => {
            const participant = participants.get(row.participantId);
            const warning = row.warnings.length > 0;
            return (
              <TableRow
                key={row.participantId}
                data-testid={`completeness-row-${row.participantCode}`}
                selected={row.participantId === highlightId}
              >
                <TableCell sx={{ ...sticky, whiteSpace: 'nowrap' }}>
                  <Stack spacing={0.25}>
                    <span>{row.participantCode}</span>
                    <Stack direction="row" spacing={1}>
                      {participant &&
                        DATA_PAGES.filter((page) =>
                          row.connections.some((connection) => connection.brand === page.brand),
                        ).map((page) => (
                          <Link
                            key={page.path}
                            component={RouterLink}
                            to={page.path}
                            state={{ participant, trial }}
                            variant="caption"
                            data-testid={`completeness-open-${page.brand}-${row.participantCode}`}
                          >
                            {page.label}
                          </Link>
                        ))}
                    </Stack>
                  </Stack>
                </TableCell>
                <TableCell
                  data-testid={`completeness-health-${row.participantCode}`}
                  data-health={warning ? 'warning' : 'ok'}
                  sx={{
                    bgcolor: warning ? 'warning.main' : undefined,
                    color: warning ? 'warning.contrastText' : undefined,
                    minWidth: 160,
                    maxWidth: 280,
                  }}
                >
                  <Stack direction="row" spacing={0.5} sx={{ flexWrap: 'wrap', gap: 0.5 }}>
                    {warning
                      ? row.warnings.map((name) => (
                          <Chip key={name} size="small" label={HEALTH_WARNING_LABELS[name]} />
                        ))
                      : row.connections.length === 0
                        ? 'No device'
                        : 'OK'}
                  </Stack>
                  <Box component="span" sx={{ fontSize: 11, display: 'block' }}>
                    {row.connections
                      .map((connection) =>
                        [
                          connection.brand,
                          syncedText(connection.daysSinceSync),
                          connection.battery ? `battery ${connection.battery}` : null,
                        ]
                          .filter(Boolean)
                          .join(', '),
                      )
                      .join('; ')}
                  </Box>
                </TableCell>
                <TableCell
                  align="right"
                  data-testid={`completeness-summary-${row.participantCode}`}
                >
                  {row.validPercent === null ? '—' : `${row.validPercent} %`}
                  <Box
                    component="span"
                    sx={{ display: 'block', fontSize: 11, color: 'text.secondary' }}
                  >
                    {row.validDays}/{row.expectedDays}
                  </Box>
                </TableCell>
                {grid.days.map((day, index) => {
                  const state = row.states[index]!;
                  return (
                    <TableCell key={day} sx={{ p: 0.25 }}>
                      <Box
                        data-testid={`completeness-cell-${row.participantCode}-${day}`}
                        data-state={state}
                        title={cellTitle(row, index, day, state)}
                        sx={{
                          width: 14,
                          height: 14,
                          borderRadius: 0.5,
                          bgcolor: dayColor(theme, state),
                          mx: 'auto',
                        }}
                      />
                    </TableCell>
                  );
                })}
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </TableContainer>
  );
}

function cellTitle(
  row: CompletenessRow,
  index: number,
  day: string,
  state: CompletenessRow['states'][number],
): string {
  const parts = [
    `${day}: ${DAY_STATE_LABELS[state]}`,
    `wear ${(row.wearMinutes[index]! / 60).toFixed(1)} h`,
  ];
  const steps = row.steps[index];
  if (steps !== null && steps !== undefined) parts.push(`${steps} steps`);
  const sleep = row.sleepMinutes[index];
  parts.push(sleep === null || sleep === undefined ? 'no sleep recorded' : `sleep ${sleep} min`);
  const cgm = row.cgmUsagePercent[index];
  if (cgm !== null && cgm !== undefined) parts.push(`CGM ${cgm} %`);
  if (row.bpReadings[index]) parts.push(`${row.bpReadings[index]} BP readings`);
  if (row.weightReadings[index]) parts.push(`${row.weightReadings[index]} weight readings`);
  return parts.join(' · ');
}

/** How long ago a connection last synced, as a coordinator reads it. */
export function syncedText(daysSinceSync: number | null): string {
  if (daysSinceSync === null) return 'never synced';
  if (daysSinceSync === 0) return 'synced today';
  if (daysSinceSync === 1) return 'synced yesterday';
  return `synced ${daysSinceSync} days ago`;
}
