import { useCallback, useMemo, useRef, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import type { ECharts } from 'echarts/core';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { Participant } from '@trialpulse/shared';
import { ChartFigure } from '@/components/charts/chart-figure';
import { DataPageFrame } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { fitbitDataQueryKey, getFitbitData } from '../common/api/get-fitbit-data';
import { dayError, defaultDay, intradayOf, todayText, totalOf } from './intraday';
import { oneDayChart } from './one-day-chart';

export const heartPath = (day: string) => `activities/heart/date/${day}/1d/1sec.json`;
export const stepsPath = (day: string) => `activities/steps/date/${day}/1d/1min.json`;

/**
 * /FitbitParticipant1DayData (device-data §2; decision 0068): one day at full resolution —
 * heart rate at Fitbit's 1-second detail (up to 86,400 points) and steps per minute — with
 * zoom and pan. The day is in the address (`?day=yyyy-MM-dd`) so a view can be shared and
 * reloaded; it opens on yesterday.
 */
export function FitbitOneDayPage() {
  return (
    <DataPageFrame title="Fitbit one-day data" testId="fitbit-one-day-page">
      {(participant) => <OneDay participant={participant} />}
    </DataPageFrame>
  );
}

function OneDay({ participant }: { participant: Participant }) {
  const [params, setParams] = useSearchParams();
  const day = params.get('day') ?? defaultDay();
  const [picked, setPicked] = useState(day);
  const error = dayError(day, todayText());
  // Start of the heart-rate request: the page's drawing time runs from here to the
  // first frame that shows the answer (the bench reads it from data-draw-ms).
  const started = useRef(0);
  const heart = useQuery({
    queryKey: fitbitDataQueryKey(participant.id, heartPath(day)),
    queryFn: () => {
      started.current = performance.now();
      return getFitbitData(participant.id, participant.email, heartPath(day));
    },
    enabled: error === null,
    retry: false,
  });
  const steps = useQuery({
    queryKey: fitbitDataQueryKey(participant.id, stepsPath(day)),
    queryFn: () => getFitbitData(participant.id, participant.email, stepsPath(day)),
    enabled: error === null,
    retry: false,
  });
  const heartSeries = useMemo(() => intradayOf(heart.data, 'heart', day), [heart.data, day]);
  const stepSeries = useMemo(() => intradayOf(steps.data, 'steps', day), [steps.data, day]);
  const option = useMemo(() => oneDayChart(heartSeries, stepSeries), [heartSeries, stepSeries]);

  const box = useRef<HTMLDivElement>(null);
  const onChart = useCallback((instance: ECharts) => {
    instance.on('finished', () => {
      const node = box.current;
      if (!node) return;
      const series = (instance.getOption() as { series?: Array<{ data?: ArrayLike<number> }> })
        .series;
      const drawn = series?.[0]?.data?.length ?? 0;
      const count = String(drawn / 2);
      if (node.getAttribute('data-point-count') !== count && drawn > 0) {
        node.setAttribute('data-draw-ms', String(Math.round(performance.now() - started.current)));
      }
      node.setAttribute('data-point-count', count);
    });
  }, []);

  const pick = (value: string) => {
    setPicked(value);
    if (dayError(value, todayText()) === null) setParams({ day: value }, { replace: true });
  };
  const pickedError = dayError(picked, todayText());
  // A day that cannot be shown (in the future, not a date) clears the figures: the last
  // good day's numbers under the error would read as that day's.
  const shown = pickedError === null && error === null;
  const failed = heart.isError ? heart.error : steps.isError ? steps.error : null;

  return (
    <Stack spacing={2}>
      <Stack direction="row" spacing={2} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
        <TextField
          type="date"
          label="Day"
          value={picked}
          onChange={(event) => pick(event.target.value)}
          error={pickedError !== null}
          helperText={pickedError ?? ' '}
          slotProps={{
            inputLabel: { shrink: true },
            htmlInput: { max: todayText(), 'data-testid': 'one-day-date' },
          }}
          size="small"
          sx={{ width: 200 }}
        />
        {shown && (
          <>
            <Summary label="Heart-rate points" value={heartSeries.count.toLocaleString('en-US')} />
            {heartSeries.count > 0 && (
              <Summary label="Range" value={`${heartSeries.min}–${heartSeries.max} bpm`} />
            )}
            <Summary label="Steps" value={totalOf(stepSeries).toLocaleString('en-US')} />
          </>
        )}
      </Stack>
      {shown && failed && (
        <Alert severity="warning" data-testid="one-day-error">
          {userMessage(failed, FITBIT_DATA_MESSAGES.couldNotGetData)}
        </Alert>
      )}
      {/* No frame either: an empty chart and its how-to caption under the message would
          read as a day without data. */}
      {shown && (
        <Paper variant="outlined" sx={{ p: 1 }}>
          <Typography variant="caption" color="text.secondary">
            Scroll to zoom, drag to pan; the slider below chooses the window. Times are the
            participant&apos;s local clock.
          </Typography>
          <Box ref={box} data-testid="one-day-chart-box" data-point-count="0">
            {(heart.isSuccess || steps.isSuccess) && (
              <ChartFigure
                option={option}
                height={440}
                testId="one-day-chart"
                ariaLabel={`Heart rate and steps of ${participant.participant_code} on ${day}`}
                onChart={onChart}
              />
            )}
          </Box>
          {(heart.isPending || steps.isPending) && (
            <Typography color="text.secondary" data-testid="one-day-loading">
              Loading {day}…
            </Typography>
          )}
        </Paper>
      )}
    </Stack>
  );
}

function Summary({ label, value }: { label: string; value: string }) {
  return (
    <Box>
      <Typography variant="caption" color="text.secondary" component="div">
        {label}
      </Typography>
      <Typography sx={{ fontWeight: 600 }}>{value}</Typography>
    </Box>
  );
}
