import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { userMessage } from '@/lib/api-client';
import { dayRangeText } from '@/lib/day-range';
import { useFitbitWeeklySummary } from '../../common/api/get-weekly-summary';
import { weeklySummaryDays } from '../../common/utils/weekly-days';
import { TILE_IDS, tilesFromSummary } from '../utils/tiles';

const number = (value: number | null) => (value === null ? '—' : value.toLocaleString('en-US'));

/**
 * The Fitbit part of the printable report (decision 0165): the weekly summary the data
 * page's tiles show (same call, same `tilesFromSummary`), as one table whose column heads
 * name the days each week covers.
 */
export function WeeklySummaryReport({ participantId }: { participantId: number }) {
  const summary = useFitbitWeeklySummary(participantId);
  if (summary.isPending)
    return <CircularProgress size={28} aria-label="Loading the weekly summary" />;
  if (summary.isError)
    return <Alert severity="error">{userMessage(summary.error, GENERIC_ERROR_MESSAGE)}</Alert>;
  const tiles = tilesFromSummary(summary.data);
  const days = weeklySummaryDays(summary.data);
  return (
    <Table size="small" aria-label="Fitbit weekly summary" data-testid="fitbit-weekly-report">
      <TableHead>
        <TableRow>
          <TableCell>Measure</TableCell>
          <TableCell align="right">
            Last 7 days{days && <br />}
            {days && dayRangeText(days.last)}
          </TableCell>
          <TableCell align="right">
            Previous 7 days{days && <br />}
            {days && dayRangeText(days.previous)}
          </TableCell>
          <TableCell align="right">Change</TableCell>
        </TableRow>
      </TableHead>
      <TableBody>
        {TILE_IDS.map((id) => {
          const tile = tiles[id];
          return (
            <TableRow key={id}>
              <TableCell component="th" scope="row">
                {tile.title} ({tile.measure.toLowerCase()}, {tile.unit})
              </TableCell>
              <TableCell align="right">{number(tile.last)}</TableCell>
              <TableCell align="right">{number(tile.previous)}</TableCell>
              <TableCell align="right">
                {tile.changePercent === null ? '—' : `${tile.changePercent}%`}
              </TableCell>
            </TableRow>
          );
        })}
      </TableBody>
    </Table>
  );
}
