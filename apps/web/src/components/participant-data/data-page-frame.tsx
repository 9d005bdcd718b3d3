import type { ReactNode } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  LIMITS,
  PARTICIPANT_MESSAGES,
  participantSchema,
  trialSchema,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { ReturnToTrialBar } from './return-to-trial-bar';

/** The participant and trial a data page was opened for (navigation state, else the last opened). */
export function useDataPageParticipant(): { participant: Participant | null; trial: Trial | null } {
  const participant = useOpenedRow(participantSchema, {
    stateKey: 'participant',
    storageKey: STORAGE_KEYS.currentParticipant,
  });
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  return { participant, trial };
}

/**
 * The frame of every device data page (device-data §2): the return bar "Return to Main
 * Trial Page" with the trial number and name, the page title with the participant code,
 * and the page. Without a participant it says so instead.
 */
export function DataPageFrame({
  title,
  testId,
  children,
  sidebar,
}: {
  title: string;
  testId: string;
  sidebar?: (participant: Participant, trial: Trial | null) => ReactNode;
  children: (participant: Participant, trial: Trial | null) => ReactNode;
}) {
  const { participant, trial } = useDataPageParticipant();
  if (!participant) {
    return (
      <Alert severity="info" data-testid={`${testId}-missing`}>
        {PARTICIPANT_MESSAGES.notFound}
      </Alert>
    );
  }
  return (
    <Stack spacing={2} data-testid={testId}>
      {trial && <ReturnToTrialBar trial={trial} />}
      <Typography variant="h1" component="h1" sx={{ fontSize: 28 }}>
        {title}: {participant.participant_code}
      </Typography>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ alignItems: 'flex-start' }}>
        {sidebar && (
          <Box
            sx={{ width: { xs: '100%', md: LIMITS.sidebarWidth }, flexShrink: 0 }}
            data-testid="data-page-sidebar"
          >
            {sidebar(participant, trial)}
          </Box>
        )}
        <Box sx={{ flex: 1, minWidth: 0, width: '100%' }}>{children(participant, trial)}</Box>
      </Stack>
    </Stack>
  );
}

/** Links between one participant's data pages, keeping the navigation state. */
export function DataPageLink({
  to,
  participant,
  trial,
  children,
  testId,
}: {
  to: string;
  participant: Participant;
  trial: Trial | null;
  children: ReactNode;
  testId?: string;
}) {
  return (
    <Link component={RouterLink} to={to} state={{ participant, trial }} data-testid={testId}>
      {children}
    </Link>
  );
}
