import { useMemo } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import {
  DEVICE_DATA_MESSAGES,
  OMRON_UNITS,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { dataErrorSeverity } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useOmronData } from '../api/get-omron-data';
import { bloodPressureAverages } from '../utils/blood-pressure';
import { localToday } from '../utils/omron-form';
import { BloodPressureCharts } from './omron-charts';

/**
 * The blood-pressure part of the printable report (decision 0165): the readings of the
 * report's period (one Omron call from its first day, readings before its start left out),
 * their averages, the last reading and the blood-pressure and pulse charts.
 */
export function BloodPressureReport({
  participantId,
  period,
}: {
  participantId: number;
  period: { start: Date; end: Date };
}) {
  const answer = useOmronData(participantId, {
    queryStr: 'bloodpressure',
    // A day early: the filter below keeps exactly the period, whatever day `since` is read in.
    since: localToday(new Date(period.start.getTime() - 86_400_000)),
    sortOrder: 'asc',
    limit: 0,
  });
  const readings = useMemo(
    () =>
      (answer.data?.bloodPressure ?? []).filter((reading) => {
        const at = Date.parse(reading.dateTime);
        return at >= period.start.getTime() && at < period.end.getTime();
      }),
    [answer.data, period],
  );
  if (answer.isPending)
    return <CircularProgress size={28} aria-label="Loading blood pressure readings" />;
  if (answer.isError)
    return (
      <Alert severity={dataErrorSeverity(answer.error)}>
        {userMessage(answer.error, GENERIC_ERROR_MESSAGE)}
      </Alert>
    );
  if (readings.length === 0)
    return <Typography data-testid="bp-report-empty">{DEVICE_DATA_MESSAGES.noData}</Typography>;
  const averages = bloodPressureAverages(readings);
  const last = readings[readings.length - 1]!;
  const pressure = (systolic: number | null, diastolic: number | null) =>
    systolic === null || diastolic === null
      ? '—'
      : `${systolic}/${diastolic} ${OMRON_UNITS.pressure}`;
  return (
    <Stack spacing={2} data-testid="bp-report">
      <Table size="small" aria-label="Blood pressure summary" sx={{ maxWidth: 520 }}>
        <TableBody>
          <TableRow>
            <TableCell component="th" scope="row">
              Readings
            </TableCell>
            <TableCell align="right" data-testid="bp-report-count">
              {averages.count}
            </TableCell>
          </TableRow>
          <TableRow>
            <TableCell component="th" scope="row">
              Average blood pressure
            </TableCell>
            <TableCell align="right" data-testid="bp-report-average">
              {pressure(averages.systolic, averages.diastolic)}
            </TableCell>
          </TableRow>
          <TableRow>
            <TableCell component="th" scope="row">
              Average pulse
            </TableCell>
            <TableCell align="right">
              {averages.pulse === null ? '—' : `${averages.pulse} ${OMRON_UNITS.pulse}`}
            </TableCell>
          </TableRow>
          <TableRow>
            <TableCell component="th" scope="row">
              Last reading
            </TableCell>
            <TableCell align="right">
              {pressure(last.systolic, last.diastolic)} · {last.dateTimeLocal.replace('T', ' ')}
            </TableCell>
          </TableRow>
        </TableBody>
      </Table>
      <BloodPressureCharts readings={readings} />
    </Stack>
  );
}
