import { useMemo } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import {
  FITBIT_PAGE_MESSAGES,
  chosenOption,
  fitbitResourcePaths,
  type FitbitQueryForm,
} from '@trialpulse/shared/device-data/fitbit-query';
import { ChartFigure } from '@/components/charts/chart-figure';
import {
  fitbitErrorMessage,
  isFitbitNoData,
  useFitbitData,
} from '../../common/api/get-fitbit-data';
import { localToday } from '../../common/utils/units';
import { isEmptyView, toFitbitView, type FitbitView } from '../utils/fitbit-views';
import { FitbitDataTable } from './fitbit-data-table';

/**
 * The chart and the table of one submitted query (device-data §2), or the spec's message:
 * "Could not find any data!" for an empty answer, the call's error otherwise ("Fitbit active
 * minutes request failed!" when one of the three active-minutes series fails), and "Error:
 * Could not prepare Fitbit data for display" when an answer cannot be read.
 */
export function FitbitQueryResults({
  participantId,
  participantCode,
  email,
  query,
}: {
  participantId: number;
  participantCode: string;
  email: string | null | undefined;
  query: FitbitQueryForm;
}) {
  const paths = useMemo(() => fitbitResourcePaths(query, localToday()), [query]);
  const data = useFitbitData(participantId, email, paths);
  const view = useMemo((): FitbitView | 'unreadable' | null => {
    if (!data.data) return null;
    try {
      return toFitbitView(query, data.data);
    } catch {
      return 'unreadable';
    }
  }, [data.data, query]);

  if (data.isPending) {
    return (
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <CircularProgress size={24} aria-label="Loading Fitbit data" />
        <Typography color="text.secondary">Loading Fitbit data…</Typography>
      </Stack>
    );
  }
  if (data.isError) {
    if (isFitbitNoData(data.error)) {
      return (
        <Alert severity="info" data-testid="fitbit-no-data">
          {FITBIT_DATA_MESSAGES.noData}
        </Alert>
      );
    }
    const activeMinutes = chosenOption(query) === 'activeMinutes';
    return (
      <Alert severity="error" data-testid="fitbit-data-error">
        {activeMinutes ? FITBIT_PAGE_MESSAGES.activeMinutesFailed : fitbitErrorMessage(data.error)}
      </Alert>
    );
  }
  if (view === 'unreadable' || view === null) {
    return (
      <Alert severity="error" data-testid="fitbit-data-error">
        {FITBIT_PAGE_MESSAGES.prepareFailed}
      </Alert>
    );
  }
  if (isEmptyView(view)) {
    return (
      <Alert severity="info" data-testid="fitbit-no-data">
        {FITBIT_DATA_MESSAGES.noData}
      </Alert>
    );
  }
  const tableName = `Fitbit-${participantCode}-${view.title}`;
  return (
    <Stack spacing={2} data-testid="fitbit-query-results" data-paths={paths.join(' ')}>
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography variant="subtitle1" component="h2" sx={{ mb: 1 }}>
          {view.title}
        </Typography>
        {view.chart && (
          <ChartFigure
            option={view.chart}
            height={320}
            testId="fitbit-query-chart"
            ariaLabel={view.chartLabel}
          />
        )}
      </Paper>
      <FitbitDataTable
        key={view.title}
        tableId="fitbit-query-table"
        storageId={`${query.category}-${chosenOption(query)}`}
        fileName={tableName}
        columns={view.columns}
        rows={view.rows}
      />
    </Stack>
  );
}
