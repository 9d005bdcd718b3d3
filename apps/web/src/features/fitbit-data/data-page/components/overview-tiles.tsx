import { useState } from 'react';
import {
  DndContext,
  KeyboardSensor,
  PointerSensor,
  closestCenter,
  useSensor,
  useSensors,
  type DragEndEvent,
} from '@dnd-kit/core';
import {
  SortableContext,
  rectSortingStrategy,
  rectSwappingStrategy,
  sortableKeyboardCoordinates,
  useSortable,
} from '@dnd-kit/sortable';
import { CSS } from '@dnd-kit/utilities';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import CircularProgress from '@mui/material/CircularProgress';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import DragIndicator from '@mui/icons-material/DragIndicator';
import FileDownloadOutlined from '@mui/icons-material/FileDownloadOutlined';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { readStoredJson, writeStoredJson } from '@/components/data-table';
import { userMessage } from '@/lib/api-client';
import { coverText } from '@/lib/day-range';
import { useFitbitWeeklySummary } from '../../common/api/get-weekly-summary';
import { weeklySummaryDays } from '../../common/utils/weekly-days';
import { downloadXlsx } from '../../common/utils/export-xlsx';
import {
  TILE_IDS,
  TILE_TABLE_HEADERS,
  moveTile,
  tileTableRow,
  tilesFromSummary,
  validTileOrder,
  type DragMode,
  type TileFigures,
  type TileId,
} from '../utils/tiles';

const ORDER_KEY = 'tp.fitbit.tileOrder';
const number = (value: number | null) => (value === null ? '—' : value.toLocaleString('en-US'));

/**
 * The overview of the Fitbit data page (device-data §2): the six tiles of the weekly summary
 * (last 7 days against the 7 before), dragged in Shift or Swap mode (the order is kept in
 * local storage), selected and exported to XLSX; each tile's table opens with Show More,
 * all at once with Expand All Tables.
 */
export function OverviewTiles({
  participantId,
  participantCode,
}: {
  participantId: number;
  participantCode: string;
}) {
  const summary = useFitbitWeeklySummary(participantId);
  const [order, setOrder] = useState<TileId[]>(
    () => validTileOrder(readStoredJson('local', ORDER_KEY)) ?? [...TILE_IDS],
  );
  const [mode, setMode] = useState<DragMode>('shift');
  const [selected, setSelected] = useState<ReadonlySet<TileId>>(new Set());
  const [expanded, setExpanded] = useState<ReadonlySet<TileId>>(new Set());
  const [exporting, setExporting] = useState(false);
  const sensors = useSensors(
    useSensor(PointerSensor, { activationConstraint: { distance: 5 } }),
    useSensor(KeyboardSensor, { coordinateGetter: sortableKeyboardCoordinates }),
  );

  if (summary.isPending)
    return <CircularProgress size={28} aria-label="Loading the weekly summary" />;
  if (summary.isError) {
    return (
      <Alert severity="error" data-testid="fitbit-tiles-error">
        {userMessage(summary.error, GENERIC_ERROR_MESSAGE)}
      </Alert>
    );
  }
  const tiles = tilesFromSummary(summary.data);
  const days = weeklySummaryDays(summary.data);

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    if (!over || active.id === over.id) return;
    const next = moveTile(order, active.id as TileId, over.id as TileId, mode);
    setOrder(next);
    writeStoredJson('local', ORDER_KEY, next);
  };
  const toggle = (set: ReadonlySet<TileId>, id: TileId) => {
    const next = new Set(set);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    return next;
  };
  const exportSelected = () => {
    const chosen = order.filter((id) => selected.has(id)).map((id) => tiles[id]);
    setExporting(true);
    void downloadXlsx(`Fitbit-${participantCode}-Overview`, [
      { name: 'Overview', headers: TILE_TABLE_HEADERS, rows: chosen.map(tileTableRow) },
    ]).finally(() => setExporting(false));
  };

  return (
    <Stack spacing={2} data-testid="fitbit-overview">
      <Stack direction="row" spacing={1} useFlexGap sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <Typography variant="subtitle1" component="h2" sx={{ mr: 'auto' }}>
          Last 7 days vs previous 7 days
        </Typography>
        {days && (
          <Typography variant="body2" color="text.secondary" data-testid="fitbit-tiles-days">
            {coverText(days.last)} · previous {coverText(days.previous)}
          </Typography>
        )}
        <ToggleButtonGroup
          size="small"
          exclusive
          value={mode}
          onChange={(_, value: DragMode | null) => value && setMode(value)}
          aria-label="Drag mode"
        >
          <ToggleButton value="shift" data-testid="tile-mode-shift">
            Shift
          </ToggleButton>
          <ToggleButton value="swap" data-testid="tile-mode-swap">
            Swap
          </ToggleButton>
        </ToggleButtonGroup>
        <Button
          size="small"
          onClick={() => setExpanded(new Set(TILE_IDS))}
          data-testid="tiles-expand-all"
        >
          Expand All Tables
        </Button>
        <Button
          size="small"
          onClick={() => setExpanded(new Set())}
          data-testid="tiles-collapse-all"
        >
          Collapse All Tables
        </Button>
        <Button
          size="small"
          variant="outlined"
          startIcon={<FileDownloadOutlined />}
          disabled={selected.size === 0 || exporting}
          onClick={exportSelected}
          data-testid="tiles-export-xlsx"
        >
          Export Selected (XLSX)
        </Button>
      </Stack>
      <DndContext sensors={sensors} collisionDetection={closestCenter} onDragEnd={onDragEnd}>
        <SortableContext
          items={order}
          strategy={mode === 'swap' ? rectSwappingStrategy : rectSortingStrategy}
        >
          <Box
            data-testid="fitbit-tiles"
            sx={{
              display: 'grid',
              gap: 2,
              gridTemplateColumns: { xs: '1fr', sm: '1fr 1fr', lg: '1fr 1fr 1fr' },
            }}
          >
            {order.map((id) => (
              <SortableTile
                key={id}
                tile={tiles[id]}
                covers={days && coverText(days.last)}
                selected={selected.has(id)}
                expanded={expanded.has(id)}
                onSelect={() => setSelected((set) => toggle(set, id))}
                onExpand={() => setExpanded((set) => toggle(set, id))}
              />
            ))}
          </Box>
        </SortableContext>
      </DndContext>
    </Stack>
  );
}

function SortableTile({
  tile,
  covers,
  selected,
  expanded,
  onSelect,
  onExpand,
}: {
  tile: TileFigures;
  /** The days the figure covers ("7 days: 12–18 Nov"). */
  covers: string | null;
  selected: boolean;
  expanded: boolean;
  onSelect: () => void;
  onExpand: () => void;
}) {
  const {
    attributes,
    listeners,
    setNodeRef,
    setActivatorNodeRef,
    transform,
    transition,
    isDragging,
  } = useSortable({ id: tile.id });
  const trend =
    tile.changePercent === null
      ? 'no previous week'
      : `${tile.changePercent > 0 ? '+' : ''}${tile.changePercent}% vs previous 7 days`;
  return (
    <Paper
      ref={setNodeRef}
      variant="outlined"
      data-testid={`fitbit-tile-${tile.id}`}
      data-tile={tile.id}
      sx={{
        p: 2,
        transform: CSS.Transform.toString(transform),
        transition,
        opacity: isDragging ? 0.6 : 1,
        zIndex: isDragging ? 1 : 'auto',
        position: 'relative',
        borderColor: selected ? 'primary.main' : undefined,
      }}
    >
      <Stack direction="row" sx={{ alignItems: 'center' }}>
        <IconButton
          ref={setActivatorNodeRef}
          size="small"
          aria-label={`Drag ${tile.title}`}
          data-testid={`fitbit-tile-handle-${tile.id}`}
          sx={{ cursor: 'grab', touchAction: 'none' }}
          {...attributes}
          {...listeners}
        >
          <DragIndicator fontSize="small" />
        </IconButton>
        <Typography variant="subtitle1" component="h3" sx={{ flex: 1, fontWeight: 600 }}>
          {tile.title}
        </Typography>
        <Checkbox
          size="small"
          checked={selected}
          onChange={onSelect}
          slotProps={{ input: { 'aria-label': `Select ${tile.title}` } }}
          data-testid={`fitbit-tile-select-${tile.id}`}
        />
      </Stack>
      <Typography variant="h4" component="p" data-testid={`fitbit-tile-value-${tile.id}`}>
        {number(tile.last)}
      </Typography>
      <Typography variant="body2" color="text.secondary">
        {tile.measure}, {tile.unit} · {trend}
      </Typography>
      {covers && (
        <Typography
          variant="caption"
          color="text.secondary"
          data-testid={`fitbit-tile-days-${tile.id}`}
        >
          {covers}
        </Typography>
      )}
      {expanded && (
        <Table size="small" sx={{ mt: 1 }} data-testid={`fitbit-tile-table-${tile.id}`}>
          <TableBody>
            <TableRow>
              <TableCell>Last 7 days</TableCell>
              <TableCell align="right">{number(tile.last)}</TableCell>
            </TableRow>
            <TableRow>
              <TableCell>Previous 7 days</TableCell>
              <TableCell align="right">{number(tile.previous)}</TableCell>
            </TableRow>
            <TableRow>
              <TableCell>Change</TableCell>
              <TableCell align="right">
                {tile.changePercent === null ? '—' : `${tile.changePercent}%`}
              </TableCell>
            </TableRow>
          </TableBody>
        </Table>
      )}
      <Button
        size="small"
        onClick={onExpand}
        data-testid={`fitbit-tile-more-${tile.id}`}
        sx={{ mt: 1 }}
      >
        {expanded ? 'Show Less' : 'Show More'}
      </Button>
    </Paper>
  );
}
