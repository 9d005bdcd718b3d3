import { useMemo } from 'react';
import { Link as RouterLink } from 'react-router';
import { useQueries } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Grid from '@mui/material/Grid';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Participant, Trial } from '@trialpulse/shared';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import { EChart, type EChartOption } from '@/components/charts';
import { DataPageFrame, DataPageLink } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useCan } from '@/lib/session/use-can';
import { dailyValues } from '../multi/compare';
import { fitbitDataQueryKey, getFitbitData } from '../common/api/get-fitbit-data';
import { defaultDay } from '../one-day/intraday';
import { coverText, lastDays } from '@/lib/day-range';
import { useFitbitWeeklySummary } from '../common/api/get-weekly-summary';
import { weeklySummaryDays } from '../common/utils/weekly-days';
import { OVERVIEW_TILES, overviewPath, shift, tileFigures, type TileFigures } from './overview';

/**
 * /FitbitParticipantOverview (device-data §2; decision 0069): a participant's Fitbit week at
 * a glance — per daily series the last 7 days against the 7 before, with a 14-day bar
 * strip — and the way on to the Fitbit views.
 */
export function FitbitOverviewPage() {
  return (
    <DataPageFrame title="Fitbit overview" testId="fitbit-overview-page">
      {(participant, trial) => <Overview participant={participant} trial={trial} />}
    </DataPageFrame>
  );
}

function Overview({ participant, trial }: { participant: Participant; trial: Trial | null }) {
  // The weeks of the data page's tiles (decision 0180): the participant's last 7 complete
  // local days as the server names them; the browser's yesterday only when it cannot say.
  const summary = useFitbitWeeklySummary(participant.id);
  const fallback = useMemo(() => defaultDay(), []);
  const end = summary.isPending
    ? null
    : ((summary.data && weeklySummaryDays(summary.data)?.last.end) ?? fallback);
  const mayViewRaw = useCan('data.viewRaw');
  const answers = useQueries({
    queries: OVERVIEW_TILES.map((tile) => ({
      queryKey: fitbitDataQueryKey(participant.id, overviewPath(tile.resource, end ?? fallback)),
      queryFn: () =>
        getFitbitData(
          participant.id,
          participant.email,
          overviewPath(tile.resource, end ?? fallback),
        ),
      enabled: end !== null,
      retry: false,
    })),
  });
  const links: Array<[string, string, string]> = [
    ['/FitbitParticipantDataPage', 'Fitbit data page', 'overview-link-data'],
    ['/FitbitParticipant1DayData', 'One day at full resolution', 'overview-link-one-day'],
    ['/FitbitParticipantDataForm', 'Daily values form', 'overview-link-form'],
    ...(mayViewRaw
      ? ([['/FitbitParticipantDataRaw', 'Raw data', 'overview-link-raw']] as Array<
          [string, string, string]
        >)
      : []),
  ];
  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={2} sx={{ flexWrap: 'wrap' }}>
        {links.map(([to, label, testId]) => (
          <DataPageLink key={to} to={to} participant={participant} trial={trial} testId={testId}>
            {label}
          </DataPageLink>
        ))}
      </Stack>
      <Grid container spacing={2}>
        {OVERVIEW_TILES.map((tile, index) => {
          const answer = answers[index]!;
          return (
            <Grid key={tile.resource} size={{ xs: 12, sm: 6, lg: 3 }}>
              <Paper
                variant="outlined"
                sx={{ p: 2, height: '100%' }}
                data-testid={`overview-tile-${tile.resource}`}
              >
                <Typography variant="subtitle2" color="text.secondary">
                  {tile.label} · last 7 days
                </Typography>
                {answer.isError ? (
                  <Alert severity="info" sx={{ mt: 1 }}>
                    {userMessage(answer.error, FITBIT_DATA_MESSAGES.couldNotGetData)}
                  </Alert>
                ) : answer.isPending || end === null ? (
                  <Typography color="text.secondary">Loading…</Typography>
                ) : (
                  <Tile
                    figures={tileFigures(dailyValues(answer.data, tile.resource), end)}
                    unit={tile.unit}
                  />
                )}
              </Paper>
            </Grid>
          );
        })}
      </Grid>
      <Typography variant="body2" color="text.secondary" data-testid="overview-days">
        {end &&
          `Last ${coverText(lastDays(7, end))} · previous ${coverText(lastDays(7, shift(end, -7)))}. `}
        <Link component={RouterLink} to="/ParticipantOverview" state={{ participant, trial }}>
          All devices
        </Link>
      </Typography>
    </Stack>
  );
}

function Tile({ figures, unit }: { figures: TileFigures; unit: string }) {
  const option = useMemo<EChartOption>(
    () => ({
      animation: false,
      grid: { left: 0, right: 0, top: 4, bottom: 0 },
      xAxis: { type: 'category', show: false, data: figures.days.map(([day]) => day) },
      yAxis: { type: 'value', show: false },
      tooltip: { trigger: 'axis' },
      series: [
        {
          type: 'bar',
          data: figures.days.map(([, value], index) => ({
            value,
            itemStyle: { color: index < 7 ? '#90caf9' : '#1976d2' },
          })),
        },
      ],
    }),
    [figures],
  );
  const change = figures.change;
  return (
    <Stack spacing={0.5}>
      <Typography sx={{ fontSize: 28, fontWeight: 600 }} data-testid="overview-tile-value">
        {figures.last7.toLocaleString('en-US')}{' '}
        <Typography component="span" color="text.secondary">
          {unit}
        </Typography>
      </Typography>
      <Typography
        variant="body2"
        color={change === null ? 'text.secondary' : change >= 0 ? 'success.main' : 'error.main'}
      >
        {change === null
          ? 'no previous week'
          : `${change >= 0 ? '+' : ''}${change}% vs previous 7 days`}{' '}
        ({figures.previous7.toLocaleString('en-US')})
      </Typography>
      <EChart option={option} height={60} ariaLabel="Last 14 days" />
    </Stack>
  );
}
