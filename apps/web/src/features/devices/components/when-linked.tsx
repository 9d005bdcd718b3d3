import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import { DEVICE_MESSAGES, type DeviceBrandName } from '@trialpulse/shared';
import { useParticipantSyncStatus } from '@/lib/api/sync-status';

/**
 * Shows `children` — a view that asks for a brand's data (the overview's Omron and CGM
 * tiles, the report's sections) — unless the participant never linked that brand: then says
 * so, without the request the server would refuse (409 'not authorised', logged by the
 * browser as an error). A revoked or re-consent connection still shows the view: stored
 * readings may answer. The connections come from the sync status, which every role that
 * may view data may read (the connections list is for those who may link devices: a
 * Viewer's 403 there showed every brand; decision 0192). If it cannot be read, the view
 * shows and answers for itself. `fallback` replaces the message (the printed report leaves
 * a brand never linked out).
 */
export function WhenLinked({
  participantId,
  brand,
  children,
  fallback,
}: {
  participantId: number;
  brand: DeviceBrandName;
  children: ReactNode;
  fallback?: ReactNode;
}) {
  const connections = useParticipantSyncStatus(participantId);
  if (connections.isPending)
    return <CircularProgress size={24} aria-label={`Loading the ${brand} connection`} />;
  const neverLinked =
    connections.data !== undefined && !connections.data.some((entry) => entry.brand === brand);
  if (neverLinked && fallback !== undefined) return <>{fallback}</>;
  if (neverLinked)
    return (
      <Alert severity="info" data-testid={`not-linked-${brand}`}>
        {DEVICE_MESSAGES.notAuthorized}
      </Alert>
    );
  return <>{children}</>;
}
