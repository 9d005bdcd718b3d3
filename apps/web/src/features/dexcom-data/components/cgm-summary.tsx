import { useMemo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import CircularProgress from '@mui/material/CircularProgress';
import Grid from '@mui/material/Grid';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import ToggleButton from '@mui/material/ToggleButton';
import ToggleButtonGroup from '@mui/material/ToggleButtonGroup';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import {
  CGM_DEFAULT_PERIOD_DAYS,
  CGM_PERIODS,
} from '@trialpulse/shared/device-data/device-data.schemas';
import {
  CGM_NOT_ENOUGH_DATA,
  GLUCOSE_UNITS,
  TIME_IN_RANGE_BANDS,
  computeCgmSummary,
  glucoseIn,
  type CgmSummary as Summary,
  type GlucoseUnit,
} from '@trialpulse/shared/device-data/cgm';
import { userMessage } from '@/lib/api-client';
import { useDexcomData } from '../api/get-dexcom-data';
import { dataErrorSeverity } from '@/components/participant-data';
import { useGlucoseUnit } from '../utils/glucose-unit';
import { periodEndingNow } from '../utils/period';
import { AgpChart, DailyTraces, RANGE_COLORS, TimeInRangeBars } from './cgm-charts';

const percent = (share: number) => `${(share * 100).toFixed(1)} %`;

/**
 * The CGM summary clinicians know from AGP reports (decision 0056): period (default 14
 * days), time in ranges against the consensus targets, mean, GMI (only with 14 days and
 * 70 % wear), CV, sensor usage, the AGP and daily traces; mg/dL or mmol/L per user.
 */
export function CgmSummary({ participantId }: { participantId: number }) {
  const [days, setDays] = useState<number>(CGM_DEFAULT_PERIOD_DAYS);
  const [unit, setUnit] = useGlucoseUnit();
  const period = useMemo(() => periodEndingNow(days), [days]);
  const { data, summary } = useCgmSummary(participantId, period);

  return (
    <Stack spacing={2} data-testid="cgm-summary">
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <TextField
          id="cgm-period"
          select
          label="Period"
          value={String(days)}
          onChange={(event) => setDays(Number(event.target.value))}
          slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
          sx={{ width: 160 }}
        >
          {CGM_PERIODS.map((option) => (
            <option key={option} value={option}>
              {option} days
            </option>
          ))}
        </TextField>
        <ToggleButtonGroup
          exclusive
          size="small"
          value={unit}
          onChange={(_event, next: GlucoseUnit | null) => next && setUnit(next)}
          aria-label="Glucose unit"
        >
          {GLUCOSE_UNITS.map((option) => (
            <ToggleButton key={option} value={option} data-testid={`cgm-unit-${option}`}>
              {option}
            </ToggleButton>
          ))}
        </ToggleButtonGroup>
      </Stack>
      <CgmSummaryState data={data} />
      {summary && <SummaryBody summary={summary} unit={unit} />}
    </Stack>
  );
}

/**
 * The CGM part of the printable report (decision 0165): the same summary as the Dexcom tab
 * (`useCgmSummary`, one computation) for the report's period, in the user's glucose unit,
 * without the period and unit controls.
 */
export function CgmReportSection({
  participantId,
  period,
}: {
  participantId: number;
  period: { start: Date; end: Date };
}) {
  const [unit] = useGlucoseUnit();
  const { data, summary } = useCgmSummary(participantId, period);
  return (
    <Stack spacing={2} data-testid="cgm-report">
      <CgmSummaryState data={data} />
      {summary && <SummaryBody summary={summary} unit={unit} onPage />}
    </Stack>
  );
}

/** The period's EGVs (one call) and their summary by `computeCgmSummary` (decision 0056). */
export function useCgmSummary(participantId: number, period: { start: Date; end: Date }) {
  const data = useDexcomData(participantId, { ...period, records: ['egvs'] });
  const summary = useMemo(() => {
    if (!data.data?.egvs) return null;
    const points = data.data.egvs.flatMap((egv) =>
      egv.value === null
        ? []
        : [
            {
              at: Date.parse(egv.systemTime),
              utcOffsetMinutes: offsetMinutes(egv.utcOffset),
              value: egv.value,
            },
          ],
    );
    return computeCgmSummary(points, period);
  }, [data.data, period]);
  return { data, summary };
}

function CgmSummaryState({ data }: { data: ReturnType<typeof useDexcomData> }) {
  return (
    <>
      {data.isPending && <CircularProgress size={28} aria-label="Loading glucose readings" />}
      {data.isError && (
        <Alert severity={dataErrorSeverity(data.error)}>
          {userMessage(data.error, GENERIC_ERROR_MESSAGE)}
        </Alert>
      )}
    </>
  );
}

function offsetMinutes(offset: string | null): number | null {
  if (!offset) return null;
  const match = /([+-])(\d{2}):(\d{2})/.exec(offset);
  if (!match) return null;
  const minutes = Number(match[2]) * 60 + Number(match[3]);
  return match[1] === '-' ? -minutes : minutes;
}

function Stat({
  label,
  value,
  testId,
  hint,
}: {
  label: string;
  value: string;
  testId: string;
  hint?: string;
}) {
  return (
    <Card variant="outlined" data-testid={testId}>
      <CardContent>
        <Typography variant="overline">{label}</Typography>
        <Typography variant="h5" component="p">
          {value}
        </Typography>
        {hint && (
          <Typography variant="caption" color="text.secondary">
            {hint}
          </Typography>
        )}
      </CardContent>
    </Card>
  );
}

/**
 * The figures and charts. `onPage`: laid out for the report's page width on screen and on
 * paper alike (only the `sm` breakpoint, which an A4 or Letter print viewport passes too: a
 * layout that changed as the print starts would redraw the charts).
 */
function SummaryBody({
  summary,
  unit,
  onPage = false,
}: {
  summary: Summary;
  unit: GlucoseUnit;
  onPage?: boolean;
}) {
  const stat = onPage ? { xs: 6, sm: 3 } : { xs: 6, md: 3 };
  const tir = onPage ? { xs: 12 } : { xs: 12, md: 5 };
  const agp = onPage ? { xs: 12 } : { xs: 12, md: 7 };
  return (
    <Stack spacing={2}>
      <Grid container spacing={2}>
        <Grid size={stat}>
          <Stat
            testId="cgm-mean"
            label="Mean glucose"
            value={
              summary.meanMgdl === null
                ? CGM_NOT_ENOUGH_DATA
                : `${glucoseIn(unit, summary.meanMgdl)} ${unit}`
            }
          />
        </Grid>
        <Grid size={stat}>
          <Stat
            testId="cgm-gmi"
            label="GMI"
            value={summary.gmi === null ? CGM_NOT_ENOUGH_DATA : `${summary.gmi.toFixed(1)} %`}
            hint="needs ≥ 14 days and ≥ 70 % wear"
          />
        </Grid>
        <Grid size={stat}>
          <Stat
            testId="cgm-cv"
            label="Coefficient of variation"
            value={summary.cv === null ? CGM_NOT_ENOUGH_DATA : `${summary.cv.toFixed(1)} %`}
            hint="target ≤ 36 %"
          />
        </Grid>
        <Grid size={stat}>
          <Stat
            testId="cgm-usage"
            label="Sensor usage"
            value={percent(summary.sensorUsage)}
            hint={`${summary.readings} of ${summary.expectedReadings} readings in ${summary.days} days`}
          />
        </Grid>
      </Grid>
      <Grid container spacing={2}>
        <Grid size={tir}>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Typography variant="subtitle1" component="h2">
              Time in ranges
            </Typography>
            <TimeInRangeBars summary={summary} />
            <Table size="small" data-testid="cgm-tir-table">
              <TableHead>
                <TableRow>
                  <TableCell>Range</TableCell>
                  <TableCell align="right">Time</TableCell>
                  <TableCell>Target</TableCell>
                </TableRow>
              </TableHead>
              <TableBody>
                {[...TIME_IN_RANGE_BANDS].reverse().map((band) => (
                  <TableRow key={band.key}>
                    <TableCell>
                      <span
                        style={{
                          display: 'inline-block',
                          width: 10,
                          height: 10,
                          background: RANGE_COLORS[band.key],
                          marginRight: 6,
                        }}
                      />
                      {rangeLabel(band.key, unit)}
                    </TableCell>
                    <TableCell align="right">{percent(summary.timeInRange[band.key])}</TableCell>
                    <TableCell>{band.target}</TableCell>
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </Paper>
        </Grid>
        <Grid size={agp}>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Typography variant="subtitle1" component="h2">
              Ambulatory glucose profile (AGP)
            </Typography>
            <AgpChart summary={summary} unit={unit} />
          </Paper>
        </Grid>
      </Grid>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ mb: 1 }}>
          Daily glucose
        </Typography>
        <DailyTraces summary={summary} unit={unit} />
      </Paper>
    </Stack>
  );
}

function rangeLabel(key: (typeof TIME_IN_RANGE_BANDS)[number]['key'], unit: GlucoseUnit): string {
  const g = (mgdl: number) => glucoseIn(unit, mgdl);
  switch (key) {
    case 'veryLow':
      return `< ${g(54)} ${unit}`;
    case 'low':
      return `${g(54)}–${g(69)} ${unit}`;
    case 'inRange':
      return `${g(70)}–${g(180)} ${unit}`;
    case 'high':
      return `${g(181)}–${g(250)} ${unit}`;
    default:
      return `> ${g(250)} ${unit}`;
  }
}
