import { useMemo } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { CGM_DEFAULT_PERIOD_DAYS } from '@trialpulse/shared/device-data/device-data.schemas';
import { CGM_NOT_ENOUGH_DATA, computeCgmSummary } from '@trialpulse/shared/device-data/cgm';
import { userMessage } from '@/lib/api-client';
import { useDexcomData } from '../api/get-dexcom-data';
import { dataErrorSeverity } from '@/components/participant-data';
import { periodEndingNow } from '../utils/period';
import { TimeInRangeBars } from './cgm-charts';

/** The overview's CGM tile: time in ranges of the last 14 days. */
export function CgmTile({ participantId }: { participantId: number }) {
  const period = useMemo(() => periodEndingNow(CGM_DEFAULT_PERIOD_DAYS), []);
  const data = useDexcomData(participantId, { ...period, records: ['egvs'] });
  const summary = useMemo(
    () =>
      data.data?.egvs &&
      computeCgmSummary(
        data.data.egvs.flatMap((egv) =>
          egv.value === null
            ? []
            : [{ at: Date.parse(egv.systemTime), utcOffsetMinutes: null, value: egv.value }],
        ),
        period,
      ),
    [data.data, period],
  );
  if (data.isPending) return <CircularProgress size={24} aria-label="Loading CGM data" />;
  if (data.isError)
    return (
      <Alert severity={dataErrorSeverity(data.error)}>
        {userMessage(data.error, GENERIC_ERROR_MESSAGE)}
      </Alert>
    );
  if (!summary || summary.readings === 0) return <Typography>{CGM_NOT_ENOUGH_DATA}</Typography>;
  return (
    <Stack spacing={1} data-testid="overview-cgm-tile" sx={{ maxWidth: 480 }}>
      <Typography>
        Time in range (70–180 mg/dL), last {CGM_DEFAULT_PERIOD_DAYS} days:{' '}
        <strong>{(summary.timeInRange.inRange * 100).toFixed(0)} %</strong>
      </Typography>
      <TimeInRangeBars summary={summary} />
    </Stack>
  );
}
