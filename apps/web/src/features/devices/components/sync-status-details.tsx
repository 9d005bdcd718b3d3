import Chip from '@mui/material/Chip';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { syncStateLabel, type DeviceBrandName } from '@trialpulse/shared';
import { useParticipantSyncStatus } from '@/lib/api/sync-status';
import { formatDateTime } from '../utils/device-labels';

const STATE_COLORS = {
  not_synced: 'default',
  backfilling: 'info',
  up_to_date: 'success',
  backing_off: 'warning',
  needs_reconsent: 'warning',
  error: 'error',
} as const;

/** As the section's other dates ('Authorized on', device last sync): `YYYY-MM-DD HH:mm`. */
const formatDate = (value: string | null) => (value ? formatDateTime(value) : '—');

/**
 * The connection's device-data sync in the participant's device section: its state
 * (backfilling n %, up to date, backing off until …, needs re-consent, an error type),
 * the last sync, and the readings stored (rows, earliest and latest).
 */
export function SyncStatusDetails({
  participantId,
  brand,
}: {
  participantId: number;
  brand: DeviceBrandName;
}) {
  const status = useParticipantSyncStatus(participantId);
  const connection = status.data?.find((candidate) => candidate.brand === brand);
  if (!connection) return null;
  return (
    <Stack spacing={0.5} data-testid={`device-sync-${brand}`}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="body2">Data sync:</Typography>
        <Chip
          size="small"
          color={STATE_COLORS[connection.state]}
          label={syncStateLabel(connection)}
          data-testid={`device-sync-state-${brand}`}
        />
      </Stack>
      <Typography variant="body2" data-testid={`device-sync-last-${brand}`}>
        Last sync: {formatDate(connection.lastSyncAt)}
      </Typography>
      <Typography variant="body2" data-testid={`device-sync-rows-${brand}`}>
        Readings stored: {connection.rowsStored.toLocaleString('en-US')}
        {connection.rowsStored > 0 &&
          ` (${formatDate(connection.earliestReading)} – ${formatDate(connection.latestReading)})`}
      </Typography>
    </Stack>
  );
}
