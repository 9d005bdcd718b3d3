import { useRef, useState, type KeyboardEvent } from 'react';
import { Link as RouterLink } from 'react-router';
import Box from '@mui/material/Box';
import Chip from '@mui/material/Chip';
import Link from '@mui/material/Link';
import Popover from '@mui/material/Popover';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  HEALTH_WARNING_LABELS,
  type CompletenessGrid as Grid,
  type CompletenessRow,
  type Participant,
  type RoutePath,
  type Trial,
} from '@trialpulse/shared';
import { DAY_STATE_LABELS } from './day-colors';
import { DaySquare } from './day-square';

/** The data pages a row links to, with the participant in navigation state (device-data spec §2). */
const DATA_PAGES: { brand: string; path: RoutePath; label: string }[] = [
  { brand: 'Fitbit', path: '/FitbitParticipantDataPage', label: 'Fitbit data' },
  { brand: 'Omron', path: '/OmronParticipantDataPage', label: 'Omron data' },
  { brand: 'Dexcom', path: '/ParticipantDataPage', label: 'Dexcom data' },
];

/** The day cell that keyboard focus moves to: participant row and day column. */
type Position = { row: number; day: number };

/**
 * Participants × days: one square per day, its state in colour and symbol; each day cell
 * is focusable (one tab stop; the arrow keys, Home/End and Page Up/Down move between
 * cells) and is named by its participant, day, state and measures, which the line under
 * the grid also shows for the focused cell. Then the
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
  const [active, setActive] = useState<Position>({ row: 0, day: grid.days.length - 1 });
  const [shown, setShown] = useState<string | null>(null);
  // The day whose detail is open, and the cell it opened from (the popover's anchor).
  const [detail, setDetail] = useState<(Position & { cell: HTMLElement }) | null>(null);
  const tableRef = useRef<HTMLTableElement>(null);
  const current = {
    row: Math.min(active.row, Math.max(rows.length - 1, 0)),
    day: Math.min(active.day, Math.max(grid.days.length - 1, 0)),
  };
  const moveFocus = (event: KeyboardEvent<HTMLTableSectionElement>) => {
    // Enter and Space open the focused day's detail, as a click does.
    const cell = (event.target as HTMLElement).closest<HTMLElement>('[data-cell]');
    if (cell && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      const [row, day] = cell.dataset.cell!.split(':').map(Number) as [number, number];
      setDetail({ row, day, cell });
      return;
    }
    const next = nextPosition(event.key, current, rows.length, grid.days.length, event.ctrlKey);
    if (!next) return;
    event.preventDefault();
    setActive(next);
    tableRef.current?.querySelector<HTMLElement>(`[data-cell="${next.row}:${next.day}"]`)?.focus();
  };
  const sticky = { position: 'sticky', left: 0, zIndex: 1, bgcolor: 'background.paper' } as const;
  return (
    <Stack spacing={1}>
      <TableContainer
        sx={{ maxHeight: '70vh', border: 1, borderColor: 'divider', borderRadius: 1 }}
      >
        <Table
          ref={tableRef}
          size="small"
          stickyHeader
          data-testid="completeness-grid"
          aria-label="Data completeness by participant and day"
          aria-describedby="completeness-grid-keys"
          sx={{ width: 'auto' }}
        >
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
          <TableBody onKeyDown={moveFocus}>
            {rows.map((row, rowIndex) => {
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
                            // White chip, dark text: a grey chip's dark text on the warning
                            // colour had 3:1 (WCAG 2.1 AA asks 4.5:1; issue 30).
                            <Chip
                              key={name}
                              size="small"
                              label={HEALTH_WARNING_LABELS[name]}
                              sx={{ bgcolor: 'common.white', color: 'warning.dark' }}
                            />
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
                    const text = cellText(row, index, day, state);
                    const isCurrent = rowIndex === current.row && index === current.day;
                    return (
                      <TableCell
                        key={day}
                        tabIndex={isCurrent ? 0 : -1}
                        aria-label={text}
                        title={text}
                        data-cell={`${rowIndex}:${index}`}
                        data-testid={`completeness-day-${row.participantCode}-${day}`}
                        onFocus={() => {
                          setActive({ row: rowIndex, day: index });
                          setShown(text);
                        }}
                        onClick={(event) => {
                          event.currentTarget.focus();
                          setDetail({ row: rowIndex, day: index, cell: event.currentTarget });
                        }}
                        sx={{
                          p: 0.25,
                          cursor: 'pointer',
                          '&:focus-visible, &:focus': {
                            outline: '2px solid',
                            outlineColor: 'primary.main',
                            outlineOffset: -2,
                          },
                        }}
                      >
                        <DaySquare
                          state={state}
                          testId={`completeness-cell-${row.participantCode}-${day}`}
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
      <Typography
        variant="body2"
        aria-hidden
        data-testid="completeness-focused-day"
        sx={{ minHeight: '1.5em' }}
      >
        {shown ?? ''}
      </Typography>
      <Typography id="completeness-grid-keys" variant="caption" color="text.secondary">
        Day cells: Tab to reach them, arrow keys to move, Home and End for the first and last day,
        Enter or Space (or a click) for the day&apos;s detail.
      </Typography>
      {detail && rows[detail.row] && (
        <DayDetail
          anchor={detail.cell}
          row={rows[detail.row]!}
          index={detail.day}
          day={grid.days[detail.day]!}
          trial={trial}
          participant={participants.get(rows[detail.row]!.participantId)}
          onClose={() => setDetail(null)}
        />
      )}
    </Stack>
  );
}

/**
 * One participant's day (issue 30): its state and measures as a list, and the brand data
 * pages of that participant — the Fitbit one-day view opens on that day. A popover on the
 * cell, so Escape closes it and the focus goes back to the cell.
 */
function DayDetail({
  anchor,
  row,
  index,
  day,
  trial,
  participant,
  onClose,
}: {
  anchor: HTMLElement;
  row: CompletenessRow;
  index: number;
  day: string;
  trial: Trial;
  participant: Participant | undefined;
  onClose: () => void;
}) {
  const [, ...measures] = cellText(row, index, day, row.states[index]!).split(' · ');
  const brands = new Set<string>(row.connections.map((connection) => connection.brand));
  const headingId = `completeness-detail-${row.participantId}-${day}`;
  return (
    <Popover
      open
      anchorEl={anchor}
      onClose={onClose}
      anchorOrigin={{ vertical: 'bottom', horizontal: 'center' }}
      transformOrigin={{ vertical: 'top', horizontal: 'center' }}
      slotProps={{
        paper: {
          role: 'dialog',
          'aria-labelledby': headingId,
          sx: { p: 2, maxWidth: 320 },
          // The popover is outside the table: its own test id.
          ...({ 'data-testid': 'completeness-day-detail' } as object),
        },
      }}
    >
      <Typography id={headingId} variant="subtitle2" component="h2">
        {row.participantCode}, {day}: {DAY_STATE_LABELS[row.states[index]!]}
      </Typography>
      <Box component="ul" sx={{ m: 0, my: 1, pl: 2.5 }}>
        {measures.map((measure) => (
          <Typography key={measure} component="li" variant="body2">
            {measure}
          </Typography>
        ))}
      </Box>
      {participant && (
        <Stack spacing={0.5}>
          {brands.has('Fitbit') && (
            <Link
              component={RouterLink}
              to={{ pathname: '/FitbitParticipant1DayData', search: `?day=${day}` }}
              state={{ participant, trial }}
              variant="body2"
              data-testid="completeness-detail-one-day"
            >
              Fitbit one-day view of {day}
            </Link>
          )}
          {DATA_PAGES.filter((page) => brands.has(page.brand)).map((page) => (
            <Link
              key={page.path}
              component={RouterLink}
              to={page.path}
              state={{ participant, trial }}
              variant="body2"
            >
              {page.label}
            </Link>
          ))}
        </Stack>
      )}
    </Popover>
  );
}

/** Where a key moves the focused day cell (null: not a moving key). */
export function nextPosition(
  key: string,
  at: Position,
  rowCount: number,
  dayCount: number,
  ctrl = false,
): Position | null {
  const clamp = (value: number, count: number) => Math.min(Math.max(value, 0), count - 1);
  switch (key) {
    case 'ArrowLeft':
      return { ...at, day: clamp(at.day - 1, dayCount) };
    case 'ArrowRight':
      return { ...at, day: clamp(at.day + 1, dayCount) };
    case 'ArrowUp':
      return { ...at, row: clamp(at.row - 1, rowCount) };
    case 'ArrowDown':
      return { ...at, row: clamp(at.row + 1, rowCount) };
    case 'Home':
      return ctrl ? { row: 0, day: 0 } : { ...at, day: 0 };
    case 'End':
      return ctrl ? { row: rowCount - 1, day: dayCount - 1 } : { ...at, day: dayCount - 1 };
    case 'PageUp':
      return { ...at, row: clamp(at.row - 10, rowCount) };
    case 'PageDown':
      return { ...at, row: clamp(at.row + 10, rowCount) };
    default:
      return null;
  }
}

/** A day cell's name: participant, day, state and that day's measures. */
export function cellText(
  row: CompletenessRow,
  index: number,
  day: string,
  state: CompletenessRow['states'][number],
): string {
  // A day the tracker was expected but never worn says so (decision 0181), never "0 steps".
  const notWorn = row.wearMinutes[index] === 0 && (state === 'missing' || state === 'partial');
  const parts = [
    `${row.participantCode}, ${day}: ${DAY_STATE_LABELS[state]}`,
    notWorn ? 'not worn' : `wear ${(row.wearMinutes[index]! / 60).toFixed(1)} h`,
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
