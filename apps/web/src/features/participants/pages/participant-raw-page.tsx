import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import CircularProgress from '@mui/material/CircularProgress';
import {
  GENERIC_ERROR_MESSAGE,
  PARTICIPANT_MESSAGES,
  participantSchema,
  trialSchema,
  type Participant,
} from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { isApiError, userMessage } from '@/lib/api-client';
import { useParticipantRaw } from '../api/get-participant-raw';
import { MissingRecord } from '../components/missing-record';
import { PARTICIPANT_PATHS } from '../utils/paths';

/**
 * /ParticipantRaw (Sys_Admin): the participant's stored record as read-only JSON, opened
 * with Ctrl+Shift+Q on /Participant. Fields the team hides are left out by the server.
 */
export function ParticipantRawPage() {
  const participant = useOpenedRow(participantSchema, {
    stateKey: 'participant',
    storageKey: STORAGE_KEYS.currentParticipant,
  });
  if (!participant) {
    return <MissingRecord message={PARTICIPANT_MESSAGES.notFound} testId="participant-missing" />;
  }
  return <RawRecord participant={participant} />;
}

function RawRecord({ participant }: { participant: Participant }) {
  const raw = useParticipantRaw(participant.id);
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });

  return (
    <Stack spacing={2} data-testid="participant-raw-page">
      <div>
        <Typography variant="h1" component="h1">
          Participant raw data
        </Typography>
        <Link
          component={RouterLink}
          to={PARTICIPANT_PATHS.participant}
          state={{ participant, trial }}
          data-testid="participant-raw-back"
        >
          Back to participant {participant.participant_code}
        </Link>
      </div>
      {raw.isPending && <CircularProgress size={24} />}
      {raw.isError && (
        <Alert severity="error" data-testid="participant-raw-error">
          {isApiError(raw.error) && raw.error.status === 404
            ? PARTICIPANT_MESSAGES.notFound
            : userMessage(raw.error, GENERIC_ERROR_MESSAGE)}
        </Alert>
      )}
      {raw.data && (
        <Box
          component="pre"
          data-testid="participant-raw-json"
          // A region one can reach with the keyboard to scroll it sideways (long lines).
          role="region"
          aria-label={`Stored record of ${participant.participant_code}`}
          tabIndex={0}
          sx={{
            m: 0,
            p: 2,
            borderRadius: 1,
            bgcolor: 'action.hover',
            overflowX: 'auto',
            fontFamily: 'monospace',
            fontSize: 14,
          }}
        >
          {JSON.stringify(raw.data, null, 2)}
        </Box>
      )}
    </Stack>
  );
}
