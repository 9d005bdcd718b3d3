import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import {
  DEVICE_DATA_MESSAGES,
  OMRON_UNITS,
  kgToLbs,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { DataPageFrame, DataPageLink, dataErrorSeverity } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useOmronData } from '../api/get-omron-data';
import { bloodPressureAverages } from '../utils/blood-pressure';
import { daysBack } from '../utils/omron-form';
import type { OmronWhenLinked } from './omron-data-page';

const average = (values: readonly number[]) =>
  values.length === 0
    ? null
    : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 10) / 10;

function Tile({
  title,
  value,
  detail,
  testId,
}: {
  title: string;
  value: string;
  detail: string;
  testId: string;
}) {
  return (
    <Card variant="outlined" data-testid={testId}>
      <CardContent>
        <Typography variant="overline">{title}</Typography>
        <Typography variant="h5" component="p">
          {value}
        </Typography>
        <Typography variant="body2" color="text.secondary">
          {detail}
        </Typography>
      </CardContent>
    </Card>
  );
}

/**
 * /OmronParticipantOverview: the last readings and the averages of the last 7 days; for a
 * participant who never linked Omron, `whenLinked` shows that state instead of asking.
 */
export function OmronOverviewPage({
  whenLinked = (_participantId, view) => view,
}: {
  whenLinked?: OmronWhenLinked;
}) {
  return (
    <DataPageFrame title="Omron overview" testId="omron-overview-page">
      {(participant, trial) =>
        whenLinked(
          participant.id,
          <OmronOverview
            participantId={participant.id}
            link={
              <DataPageLink to="/OmronParticipantDataPage" participant={participant} trial={trial}>
                Open the Omron data page
              </DataPageLink>
            }
          />,
        )
      }
    </DataPageFrame>
  );
}

export function OmronOverview({
  participantId,
  link,
}: {
  participantId: number;
  link?: React.ReactNode;
}) {
  // The last 30 days, newest first: the last reading and the week's readings in one answer each.
  const since = daysBack(30);
  const bp = useOmronData(participantId, {
    queryStr: 'bloodpressure',
    since,
    sortOrder: 'desc',
    limit: 0,
  });
  const weight = useOmronData(participantId, {
    queryStr: 'weight',
    since,
    sortOrder: 'desc',
    limit: 0,
  });
  if (bp.isPending || weight.isPending)
    return <CircularProgress size={28} aria-label="Loading Omron overview" />;
  if (bp.isError || weight.isError) {
    return (
      <Alert severity={dataErrorSeverity(bp.error ?? weight.error)}>
        {userMessage(bp.error ?? weight.error, GENERIC_ERROR_MESSAGE)}
      </Alert>
    );
  }
  const weekStart = daysBack(7);
  const lastBp = bp.data.bloodPressure?.[0];
  const weekBp = (bp.data.bloodPressure ?? []).filter(
    (r) => r.dateTimeLocal.slice(0, 10) >= weekStart,
  );
  const lastWeight = weight.data.weight?.[0];
  const weekWeight = (weight.data.weight ?? []).filter(
    (r) => r.dateTimeLocal.slice(0, 10) >= weekStart,
  );
  const { systolic: sys, diastolic: dia, pulse } = bloodPressureAverages(weekBp);
  const avgWeight = average(weekWeight.map((r) => kgToLbs(r.weight)));
  return (
    <Stack spacing={2}>
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
          <Tile
            testId="omron-last-bp"
            title="Last blood pressure"
            value={
              lastBp
                ? `${lastBp.systolic}/${lastBp.diastolic} ${OMRON_UNITS.pressure}`
                : DEVICE_DATA_MESSAGES.noData
            }
            detail={
              lastBp
                ? `${lastBp.dateTimeLocal.replace('T', ' ')}${lastBp.pulse !== null ? ` · ${lastBp.pulse} ${OMRON_UNITS.pulse}` : ''}`
                : 'last 30 days'
            }
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
          <Tile
            testId="omron-avg-bp"
            title="7-day average"
            value={
              sys !== null && dia !== null
                ? `${sys}/${dia} ${OMRON_UNITS.pressure}`
                : DEVICE_DATA_MESSAGES.noData
            }
            detail={`${weekBp.length} readings${pulse !== null ? ` · pulse ${pulse} ${OMRON_UNITS.pulse}` : ''}`}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
          <Tile
            testId="omron-last-weight"
            title="Last weight"
            value={
              lastWeight
                ? `${kgToLbs(lastWeight.weight)} ${OMRON_UNITS.weight}`
                : DEVICE_DATA_MESSAGES.noData
            }
            detail={lastWeight ? lastWeight.dateTimeLocal.replace('T', ' ') : 'last 30 days'}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6, lg: 3 }}>
          <Tile
            testId="omron-avg-weight"
            title="7-day average weight"
            value={
              avgWeight !== null
                ? `${avgWeight} ${OMRON_UNITS.weight}`
                : DEVICE_DATA_MESSAGES.noData
            }
            detail={`${weekWeight.length} readings`}
          />
        </Grid>
      </Grid>
      {link}
    </Stack>
  );
}
