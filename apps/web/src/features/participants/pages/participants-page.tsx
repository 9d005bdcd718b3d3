import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { LIMITS, trialSchema } from '@trialpulse/shared';
import { STORAGE_KEYS, useOpenedRow } from '@/components/data-table';
import { MissingRecord, SELECT_TRIAL_MESSAGE } from '../components/missing-record';
import { ParticipantsTable, type DeviceStatusSlot } from '../components/participants-table';
import { olderParticipantsTableId } from '../utils/paths';

/**
 * /ParticipantsPage: the older participants table of a trial (trial from navigation state
 * or local storage). Same data and actions as the table on /TrialPage; what differs is the
 * selection cap of the earlier reading, 4 rows instead of 10 (access spec §2, §9), and its
 * own saved table state (`tp.table.participants-page.<trialId>`). `deviceStatus` is the
 * device status column, composed in by the route as on /TrialPage.
 */
export function ParticipantsPage({ deviceStatus }: { deviceStatus?: DeviceStatusSlot } = {}) {
  const trial = useOpenedRow(trialSchema, {
    stateKey: 'trial',
    storageKey: STORAGE_KEYS.currentTrial,
  });
  if (!trial) return <MissingRecord message={SELECT_TRIAL_MESSAGE} testId="trial-missing" />;
  return (
    <Stack spacing={3} data-testid="participants-page">
      <div>
        <Typography variant="h1" component="h1">
          Participants
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }} data-testid="participants-page-trial">
          Trial: #{trial.trialNumber} - {trial.trialName}
        </Typography>
      </div>
      <ParticipantsTable
        trial={trial}
        deviceStatus={deviceStatus}
        selectionCap={LIMITS.olderParticipantsTableSelectionCap}
        tableId={olderParticipantsTableId(trial.trialId)}
      />
    </Stack>
  );
}
