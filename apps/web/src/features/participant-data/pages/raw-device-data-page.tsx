import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { GENERIC_ERROR_MESSAGE } from '@trialpulse/shared';
import { DataPageFrame } from '@/components/participant-data';
import { userMessage } from '@/lib/api-client';
import { useDexcomRaw, useOmronRaw } from '../api/get-raw-provider-data';
import { StoredReadingsTable } from '../components/stored-readings-table';

const DAY = 86_400_000;

/**
 * /OmronParticipantDataRaw and /DexcomParticipantDataRaw (Sys_Admin): the stored readings
 * with their provenance (upstream, source, sync run, synced at), and the provider's own
 * answer for the last 7 days (Omron) or 1 day (Dexcom), fetched on request.
 */
export function RawDeviceDataPage({ brand }: { brand: 'Omron' | 'Dexcom' }) {
  return (
    <DataPageFrame title={`${brand} raw data`} testId={`${brand.toLowerCase()}-raw-page`}>
      {(participant) => (
        <Stack spacing={2}>
          <StoredReadingsTable
            participantId={participant.id}
            participantCode={participant.participant_code}
            brand={brand}
            provenance
          />
          <UpstreamAnswer participantId={participant.id} brand={brand} />
        </Stack>
      )}
    </DataPageFrame>
  );
}

function UpstreamAnswer({
  participantId,
  brand,
}: {
  participantId: number;
  brand: 'Omron' | 'Dexcom';
}) {
  const omron = useOmronRaw(participantId);
  const dexcom = useDexcomRaw(participantId);
  const call = brand === 'Omron' ? omron : dexcom;
  const [asked, setAsked] = useState(false);
  const fetchNow = () => {
    setAsked(true);
    if (brand === 'Omron') {
      const since = new Date(Date.now() - 7 * DAY).toISOString().slice(0, 10);
      omron.mutate({ queryStr: 'bloodpressure', since, sortOrder: 'desc', limit: 0 });
    } else {
      const end = new Date(Math.floor(Date.now() / 1000) * 1000);
      dexcom.mutate({ start: new Date(end.getTime() - DAY), end });
    }
  };
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Stack spacing={1}>
        <Typography variant="subtitle1" component="h2">
          {brand}&apos;s answer
        </Typography>
        <Box>
          <Button
            variant="outlined"
            onClick={fetchNow}
            disabled={call.isPending}
            data-testid="raw-fetch-upstream"
          >
            Fetch {brand === 'Omron' ? 'the last 7 days of blood pressure' : 'the last day'} from{' '}
            {brand}
          </Button>
        </Box>
        {asked && call.isError && (
          <Alert severity="error">{userMessage(call.error, GENERIC_ERROR_MESSAGE)}</Alert>
        )}
        {call.data !== undefined && (
          <Box
            component="pre"
            data-testid="raw-upstream-json"
            sx={{
              m: 0,
              p: 2,
              maxHeight: 480,
              overflow: 'auto',
              bgcolor: 'action.hover',
              borderRadius: 1,
              fontSize: 13,
            }}
          >
            {JSON.stringify(call.data, null, 2)}
          </Box>
        )}
      </Stack>
    </Paper>
  );
}
