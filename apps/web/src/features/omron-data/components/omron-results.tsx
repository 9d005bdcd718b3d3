import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import {
  DEVICE_DATA_MESSAGES,
  type OmronQuery,
} from '@trialpulse/shared/device-data/device-data.schemas';
import { userMessage } from '@/lib/api-client';
import { useOmronData } from '../api/get-omron-data';
import { dataErrorSeverity } from '@/components/participant-data';
import { BloodPressureCharts, WeightChart } from './omron-charts';
import { OmronReadingsTable } from './omron-readings-table';

/** The charts and the table of one Omron query (or its error / "no data"). */
export function OmronResults({
  participantId,
  participantCode,
  query,
  showTable = true,
}: {
  participantId: number;
  participantCode: string;
  query: OmronQuery;
  showTable?: boolean;
}) {
  const data = useOmronData(participantId, query);
  if (data.isPending) return <CircularProgress size={28} aria-label="Loading Omron data" />;
  if (data.isError) {
    return (
      <Alert severity={dataErrorSeverity(data.error)} data-testid="omron-data-error">
        {userMessage(data.error, GENERIC_ERROR_MESSAGE)}
      </Alert>
    );
  }
  const { bloodPressure, weight } = data.data;
  const empty = (bloodPressure ?? weight ?? []).length === 0;
  return (
    <Stack spacing={2} data-testid="omron-results" data-source={data.data.source}>
      {empty && (
        <Alert severity="info" data-testid="omron-no-data">
          {DEVICE_DATA_MESSAGES.noData}
        </Alert>
      )}
      {bloodPressure && <BloodPressureCharts readings={bloodPressure} />}
      {weight && <WeightChart readings={weight} />}
      {showTable && (
        <OmronReadingsTable
          participantCode={participantCode}
          bloodPressure={bloodPressure}
          weight={weight}
        />
      )}
    </Stack>
  );
}
