import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import { DEVICE_MESSAGES, type DeviceBrandName } from '@trialpulse/shared';
import { useParticipantConnections } from '../api/get-participant-connections';

/**
 * Shows `children` — a view that asks for a brand's data (the overview's Omron and CGM
 * tiles) — unless the participant never linked that brand: then says so, without the
 * request the server would refuse (409 'not authorised', logged by the browser as an error).
 * A revoked or re-consent connection still shows the view: stored readings may answer.
 * If the connections cannot be read, the view shows and answers for itself. `fallback`
 * replaces the message (the printed report leaves a brand never linked out).
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
  const connections = useParticipantConnections(participantId);
  if (connections.isPending)
    return <CircularProgress size={24} aria-label={`Loading the ${brand} connection`} />;
  const connection = connections.data?.find((entry) => entry.brand === brand);
  if (connection?.status === 'not_authorized' && fallback !== undefined) return <>{fallback}</>;
  if (connection?.status === 'not_authorized')
    return (
      <Alert severity="info" data-testid={`not-linked-${brand}`}>
        {DEVICE_MESSAGES.notAuthorized}
      </Alert>
    );
  return <>{children}</>;
}
