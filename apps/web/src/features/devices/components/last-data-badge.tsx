import { useState } from 'react';
import Chip from '@mui/material/Chip';
import Skeleton from '@mui/material/Skeleton';
import { lastDataLabel } from '@trialpulse/shared';
import { useTrialLastData } from '@/lib/api/sync-status';

/** Days without data after which the badge turns to a warning. */
const STALE_DAYS = 3;

/**
 * "Last data N days ago" for a participant in the trial page's Device Status column, from
 * the readings TrialPulse stores (one request per trial, shared by every row).
 */
export function LastDataBadge({
  trialId,
  participantId,
}: {
  trialId: number;
  participantId: number;
}) {
  const lastData = useTrialLastData(trialId);
  const [now] = useState(Date.now);
  // A chip-sized placeholder while loading keeps the row's height (see DeviceStatusCell).
  if (lastData.isLoading) {
    return (
      <Skeleton
        variant="rounded"
        width={120}
        height={24}
        data-testid={`pending-last-data-${participantId}`}
      />
    );
  }
  if (!lastData.data) return null;
  const latest =
    lastData.data.participants.find((row) => row.participantId === participantId)?.latestReading ??
    null;
  const stale = !latest || now - new Date(latest).getTime() > STALE_DAYS * 86_400_000;
  return (
    <Chip
      size="small"
      variant="outlined"
      color={latest ? (stale ? 'warning' : 'success') : 'default'}
      label={lastDataLabel(latest)}
      data-testid={`last-data-${participantId}`}
      sx={{ alignSelf: 'flex-start' }}
    />
  );
}
