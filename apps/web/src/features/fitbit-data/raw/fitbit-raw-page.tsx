import { useState, type ReactNode } from 'react';
import { useMutation } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { FITBIT_DATA_MESSAGES } from '@trialpulse/shared/device-data/fitbit-resource-path';
import type { Participant } from '@trialpulse/shared';
import { DataPageFrame } from '@/components/participant-data';
import { api, userMessage } from '@/lib/api-client';
import { defaultDay } from '../one-day/intraday';

type RawAnswer = { upstream: string; request: string; answer: unknown };

/** A week of steps ending yesterday: a path every Fitbit upstream answers. */
export function defaultRawPath(now = new Date()): string {
  const end = defaultDay(now);
  const start = new Date(Date.parse(`${end}T00:00:00Z`) - 6 * 86_400_000)
    .toISOString()
    .slice(0, 10);
  return `activities/steps/date/${start}/${end}.json`;
}

/**
 * /FitbitParticipantDataRaw (Sys_Admin; decision 0068): the stored Fitbit readings with
 * their provenance (upstream, data source, sync run, synced at) and, on request, the
 * upstream's own answer for a resource path of the data page.
 */
export function FitbitRawPage({
  storedReadings,
}: {
  storedReadings: (participant: Participant) => ReactNode;
}) {
  return (
    <DataPageFrame title="Fitbit raw data" testId="fitbit-raw-page">
      {(participant) => (
        <Stack spacing={2}>
          {storedReadings(participant)}
          <UpstreamAnswer participantId={participant.id} />
        </Stack>
      )}
    </DataPageFrame>
  );
}

function UpstreamAnswer({ participantId }: { participantId: number }) {
  const [path, setPath] = useState(defaultRawPath);
  const call = useMutation({
    mutationFn: (resourcePath: string) =>
      api.get<RawAnswer>(
        `/fitbitParticipantDataRaw/${participantId}/${resourcePath.replace(/^\/+/, '')}`,
      ),
  });
  return (
    <Paper variant="outlined" sx={{ p: 2 }}>
      <Stack spacing={1.5}>
        <Typography variant="subtitle1" component="h2">
          Fitbit upstream&apos;s answer
        </Typography>
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1}>
          <TextField
            label="Resource path"
            value={path}
            onChange={(event) => setPath(event.target.value)}
            size="small"
            sx={{ flex: 1 }}
            slotProps={{ htmlInput: { 'data-testid': 'raw-path' } }}
          />
          <Button
            variant="outlined"
            onClick={() => call.mutate(path)}
            disabled={call.isPending || path.trim() === ''}
            data-testid="raw-fetch-upstream"
          >
            Fetch from Fitbit
          </Button>
        </Stack>
        {call.isError && (
          <Alert severity="error">
            {userMessage(call.error, FITBIT_DATA_MESSAGES.couldNotGetData)}
          </Alert>
        )}
        {call.data && (
          <>
            <Typography variant="body2" data-testid="raw-upstream-request">
              {call.data.upstream}: {call.data.request}
            </Typography>
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
              {JSON.stringify(call.data.answer, null, 2)}
            </Box>
          </>
        )}
      </Stack>
    </Paper>
  );
}
