import { useMemo, useState } from 'react';
import { useLocation } from 'react-router';
import { useQueries } from '@tanstack/react-query';
import { z } from 'zod';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import {
  LIMITS,
  participantSchema,
  trialSchema,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { FITBIT_PERIOD_LABELS } from '@trialpulse/shared/device-data/fitbit-query';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import { timeAxisChart, type EChartOption } from '@/components/charts';
import { ChartFigure } from '@/components/charts/chart-figure';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { userMessage } from '@/lib/api-client';
import { fitbitDataQueryKey, getFitbitData } from '../common/api/get-fitbit-data';
import { DateField, SelectField } from '../common/components/form-fields';
import { defaultDay, todayText } from '../one-day/intraday';
import {
  COMPARE_MESSAGES,
  COMPARE_PERIODS,
  COMPARE_RESOURCES,
  compareFormError,
  compareRange,
  compareRows,
  compareShortcut,
  dailyValues,
  seriesPath,
  toggleSelection,
  type CompareForm,
  type CompareResource,
  type ComparePeriod,
} from './compare';
import { ReturnToTrialBar } from '@/components/participant-data';

const stateSchema = z.object({
  participants: z.array(participantSchema).min(1).max(LIMITS.multiRowSelectionCap),
  trial: trialSchema.nullish(),
});
const COLORS = [
  '#1976d2',
  '#d32f2f',
  '#388e3c',
  '#f57c00',
  '#7b1fa2',
  '#0097a7',
  '#5d4037',
  '#c2185b',
  '#455a64',
  '#afb42b',
];

/**
 * /FitbitParticipantsDataPage (device-data §2; decision 0069): the participants chosen on
 * /ParticipantsDataPage (up to 10) side by side for one daily series — one line each on a
 * shared chart and one column each in a table by date. Up to 4 table rows (days) can be
 * selected (device-data §5) and are compared as bars.
 */
export function FitbitParticipantsDataPage() {
  const { state } = useLocation() as { state: unknown };
  const parsed = useMemo(() => stateSchema.safeParse(state), [state]);
  if (!parsed.success) {
    return (
      <Alert severity="info" data-testid="fitbit-participants-missing">
        {COMPARE_MESSAGES.noParticipants}
      </Alert>
    );
  }
  return <Comparison participants={parsed.data.participants} trial={parsed.data.trial ?? null} />;
}

function Comparison({ participants, trial }: { participants: Participant[]; trial: Trial | null }) {
  const [form, setForm] = useState<CompareForm>({
    resource: 'steps',
    period: '7d',
    end: defaultDay(),
  });
  const [submitted, setSubmitted] = useState<{
    resource: CompareResource;
    period: ComparePeriod;
    end: string;
    start?: string;
  } | null>({ resource: 'steps', period: '7d', end: defaultDay() });
  const [formError, setFormError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string[]>([]);
  const [capMessage, setCapMessage] = useState<string | null>(null);

  const answers = useQueries({
    queries: participants.map((participant) => {
      const path = submitted
        ? seriesPath(submitted.resource, submitted.end, submitted.period, submitted.start)
        : '';
      return {
        queryKey: fitbitDataQueryKey(participant.id, path),
        queryFn: () => getFitbitData(participant.id, participant.email, path),
        enabled: submitted !== null,
        retry: false,
      };
    }),
  });
  const resource = submitted?.resource ?? 'steps';
  const unit = COMPARE_RESOURCES.find((r) => r.value === resource)!.unit;
  const valuesKey = answers.map((answer) => answer.dataUpdatedAt).join();
  const answerData = answers.map((answer) => answer.data);
  const values = useMemo(
    () => answerData.map((data) => (data === undefined ? undefined : dailyValues(data, resource))),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the answers change exactly when valuesKey does
    [valuesKey, resource],
  );
  const rows = useMemo(() => compareRows(participants, values), [participants, values]);
  const lines = useMemo<EChartOption>(
    () =>
      timeAxisChart({
        unit,
        // Counts and distances: from zero (decision 0171).
        axis: 'zero',
        series: participants.map((participant, index) => ({
          name: participant.participant_code,
          color: COLORS[index % COLORS.length],
          points: [...(values[index] ?? new Map<string, number>())]
            .sort(([a], [b]) => a.localeCompare(b))
            .map(([date, value]) => [Date.parse(`${date}T12:00:00Z`), value] as const),
        })),
      }),
    [participants, values, unit],
  );
  const bars = useMemo<EChartOption | null>(() => {
    if (selected.length === 0) return null;
    const days = [...selected].sort();
    return {
      animation: false,
      tooltip: { trigger: 'axis' },
      legend: { top: 0 },
      grid: { left: 56, right: 24, top: 36, bottom: 32 },
      xAxis: { type: 'category', data: days },
      yAxis: { type: 'value', name: unit },
      series: participants.map((participant, index) => ({
        type: 'bar',
        name: participant.participant_code,
        itemStyle: { color: COLORS[index % COLORS.length] },
        data: days.map((day) => values[index]?.get(day) ?? null),
      })),
    };
  }, [selected, participants, values, unit]);

  const submit = (next: CompareForm = form) => {
    const error = compareFormError(next, todayText());
    setFormError(error);
    if (error) return;
    setSelected([]);
    setCapMessage(null);
    setSubmitted({
      resource: next.resource as CompareResource,
      period: next.period as ComparePeriod,
      end: next.end,
      ...(next.period === 'customDates' ? { start: next.start } : {}),
    });
  };
  const toggle = (date: string) => {
    const next = toggleSelection(selected, date);
    setSelected(next.selected);
    setCapMessage(next.message);
  };

  return (
    <Stack spacing={2} data-testid="fitbit-participants-data-page">
      {trial && <ReturnToTrialBar trial={trial} />}
      <Typography variant="h1" component="h1" sx={{ fontSize: 28 }}>
        Fitbit data of {participants.length}{' '}
        {participants.length === 1 ? 'participant' : 'participants'}
      </Typography>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        <Paper
          variant="outlined"
          sx={{ p: 2, width: { xs: '100%', md: LIMITS.sidebarWidth }, flexShrink: 0 }}
        >
          <Stack
            spacing={2}
            component="form"
            noValidate
            onSubmit={(event) => {
              event.preventDefault();
              submit();
            }}
          >
            <SelectField
              label="Resource"
              value={form.resource}
              onChange={(resource) => setForm({ ...form, resource })}
              placeholder="Select a resource"
              options={COMPARE_RESOURCES}
              testId="compare-resource"
            />
            <SelectField
              label="Period"
              value={form.period}
              onChange={(period) => setForm({ ...form, period })}
              placeholder="Select a period"
              options={COMPARE_PERIODS.map((period) => ({
                value: period,
                label: FITBIT_PERIOD_LABELS[period],
              }))}
              testId="compare-period"
            />
            {form.period === 'customDates' && (
              <DateField
                label="Start date"
                value={form.start ?? ''}
                onChange={(start) => setForm({ ...form, start })}
                max={form.end || todayText()}
                testId="compare-start"
              />
            )}
            <DateField
              label="End date"
              value={form.end}
              onChange={(end) => setForm({ ...form, end })}
              max={todayText()}
              testId="compare-end"
            />
            {/* Sets the period (or custom dates) ending today and compares (decision 0190). */}
            <DateRangeShortcuts
              today={todayText()}
              value={compareRange(form)}
              onPick={(_range, days) => {
                const next = compareShortcut(form, days, todayText());
                setForm(next);
                submit(next);
              }}
              testId="compare-shortcuts"
            />
            {formError && (
              <Alert severity="error" data-testid="compare-form-error">
                {formError}
              </Alert>
            )}
            <Button type="submit" variant="contained" data-testid="compare-submit">
              Compare
            </Button>
          </Stack>
        </Paper>
        <Stack spacing={2} sx={{ flex: 1, minWidth: 0, width: '100%' }}>
          {answers.map((answer, index) =>
            answer.isError ? (
              <Alert
                key={participants[index]!.id}
                severity="warning"
                data-testid={`compare-error-${participants[index]!.id}`}
              >
                {participants[index]!.participant_code}:{' '}
                {userMessage(answer.error, FITBIT_DATA_MESSAGES.couldNotGetData)}
              </Alert>
            ) : null,
          )}
          <Paper variant="outlined" sx={{ p: 1 }}>
            <ChartFigure
              option={lines}
              height={320}
              testId="compare-chart"
              ariaLabel="Daily values of the participants"
            />
          </Paper>
          {capMessage && (
            <Alert severity="info" data-testid="compare-cap-message">
              {capMessage}
            </Alert>
          )}
          {bars && (
            <Paper variant="outlined" sx={{ p: 1 }}>
              <Typography variant="subtitle2">Selected days</Typography>
              <ChartFigure
                option={bars}
                height={240}
                testId="compare-selected-chart"
                ariaLabel="Selected days side by side"
              />
            </Paper>
          )}
          <Paper variant="outlined" sx={{ overflowX: 'auto' }}>
            <Table size="small" data-testid="compare-table">
              <TableHead>
                <TableRow>
                  <TableCell padding="checkbox" />
                  <TableCell>Date</TableCell>
                  {participants.map((participant) => (
                    <TableCell key={participant.id} align="right">
                      {participant.participant_code} ({unit})
                    </TableCell>
                  ))}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((row) => (
                  <TableRow
                    key={row.date}
                    selected={selected.includes(row.date)}
                    data-testid={`compare-row-${row.date}`}
                  >
                    <TableCell padding="checkbox">
                      <Checkbox
                        size="small"
                        checked={selected.includes(row.date)}
                        onChange={() => toggle(row.date)}
                        slotProps={{ input: { 'aria-label': `Select ${row.date}` } }}
                      />
                    </TableCell>
                    <TableCell>{row.date}</TableCell>
                    {participants.map((participant) => (
                      <TableCell
                        key={participant.id}
                        align="right"
                        data-testid={`compare-cell-${row.date}-${participant.id}`}
                      >
                        {row[`p${participant.id}`] === null
                          ? '—'
                          : Number(row[`p${participant.id}`]).toLocaleString('en-US')}
                      </TableCell>
                    ))}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
            {rows.length === 0 && (
              <Box sx={{ p: 2 }}>
                <Typography color="text.secondary">No data for this query.</Typography>
              </Box>
            )}
          </Paper>
        </Stack>
      </Stack>
    </Stack>
  );
}
