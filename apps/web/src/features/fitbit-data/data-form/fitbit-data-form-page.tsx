import { useMemo, useState } from 'react';
import { Link as RouterLink } from 'react-router';
import { useQuery } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { Participant, Trial } from '@trialpulse/shared';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { DataPageFrame } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { COMPARE_RESOURCES, dailyValues, type CompareResource } from '../multi/compare';
import { fitbitDataQueryKey, getFitbitData } from '../common/api/get-fitbit-data';
import { DateField, SelectField } from '../common/components/form-fields';
import { defaultDay, todayText } from '../one-day/intraday';
import { shift } from '../overview/overview';
import { dataFormError, rangePath, type DataForm } from './data-form';

/**
 * /FitbitParticipantDataForm (device-data §2; decision 0069): a plain form for one daily
 * series over chosen dates, answered as a table by date; each date opens that day at full
 * resolution on /FitbitParticipant1DayData.
 */
export function FitbitDataFormPage() {
  return (
    <DataPageFrame title="Fitbit data form" testId="fitbit-data-form-page">
      {(participant, trial) => <FormAndTable participant={participant} trial={trial} />}
    </DataPageFrame>
  );
}

function FormAndTable({ participant, trial }: { participant: Participant; trial: Trial | null }) {
  const yesterday = useMemo(() => defaultDay(), []);
  const [form, setForm] = useState<DataForm>({
    resource: 'steps',
    start: shift(yesterday, -6),
    end: yesterday,
  });
  const [error, setError] = useState<string | null>(null);
  const [submitted, setSubmitted] = useState<{
    resource: CompareResource;
    start: string;
    end: string;
  } | null>(null);
  const answer = useQuery({
    queryKey: fitbitDataQueryKey(participant.id, submitted ? rangePath(submitted) : ''),
    queryFn: () => getFitbitData(participant.id, participant.email, rangePath(submitted!)),
    enabled: submitted !== null,
    retry: false,
  });
  const unit = COMPARE_RESOURCES.find((r) => r.value === (submitted?.resource ?? 'steps'))!.unit;
  const rows = useMemo(
    () =>
      submitted && answer.data ? [...dailyValues(answer.data, submitted.resource)].reverse() : [],
    [answer.data, submitted],
  );
  const submit = (next: DataForm = form) => {
    const failed = dataFormError(next, todayText());
    setError(failed);
    if (!failed)
      setSubmitted({
        resource: next.resource as CompareResource,
        start: next.start,
        end: next.end,
      });
  };
  const date = (key: 'start' | 'end', label: string) => (
    <DateField
      label={label}
      value={form[key]}
      onChange={(value) => setForm({ ...form, [key]: value })}
      max={todayText()}
      testId={`data-form-${key}`}
    />
  );
  return (
    <Stack spacing={2}>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Stack
          spacing={2}
          component="form"
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            submit();
          }}
        >
          <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
            <SelectField
              label="Resource"
              value={form.resource}
              onChange={(resource) => setForm({ ...form, resource })}
              placeholder="Select a resource"
              options={COMPARE_RESOURCES}
              testId="data-form-resource"
              sx={{ minWidth: 160 }}
            />
            {date('start', 'Start date')}
            {date('end', 'End date')}
            <Button type="submit" variant="contained" data-testid="data-form-submit">
              Show
            </Button>
          </Stack>
          {/* Sets both dates, ending today, and shows the table (decision 0166). */}
          <DateRangeShortcuts
            today={todayText()}
            value={form}
            onPick={(range) => {
              const next = { ...form, ...range };
              setForm(next);
              submit(next);
            }}
            testId="data-form-shortcuts"
          />
        </Stack>
      </Paper>
      {error && (
        <Alert severity="error" data-testid="data-form-error">
          {error}
        </Alert>
      )}
      {answer.isError && (
        <Alert severity="warning">
          {userMessage(answer.error, FITBIT_DATA_MESSAGES.couldNotGetData)}
        </Alert>
      )}
      {rows.length > 0 && (
        <Paper variant="outlined">
          <Table size="small" data-testid="data-form-table">
            <TableHead>
              <TableRow>
                <TableCell>Date</TableCell>
                <TableCell align="right">
                  {COMPARE_RESOURCES.find((r) => r.value === submitted?.resource)?.label} ({unit})
                </TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {rows.map(([day, value]) => (
                <TableRow key={day}>
                  <TableCell>
                    <Link
                      component={RouterLink}
                      to={`/FitbitParticipant1DayData?day=${day}`}
                      state={{ participant, trial }}
                    >
                      {day}
                    </Link>
                  </TableCell>
                  <TableCell align="right">{value.toLocaleString('en-US')}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </Paper>
      )}
    </Stack>
  );
}
