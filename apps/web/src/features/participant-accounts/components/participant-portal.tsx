import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Card from '@mui/material/Card';
import CardContent from '@mui/material/CardContent';
import Chip, { type ChipProps } from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import { DEVICE_MESSAGES, type ConnectionStatus, type DeviceConnection } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useAuthorizeMyDevice, type MyDeviceRequest } from '../api/authorize-my-device';
import { useMyEnrolments, type PortalEnrolment } from '../api/get-my-enrolments';
import { useRevokeMyDevice } from '../api/revoke-my-device';

export const PORTAL_MESSAGES = {
  loadFailed: 'Your studies could not be loaded. Please try again later.',
  noEnrolments:
    'No study is linked to your account yet. If you have just signed up, please confirm your email address with the link we sent you.',
} as const;

const STATUS: Record<ConnectionStatus, { label: string; color: ChipProps['color'] }> = {
  authorized: { label: 'Authorized', color: 'success' },
  needs_reconsent: { label: DEVICE_MESSAGES.needsReconsent, color: 'warning' },
  not_authorized: { label: 'Not authorized', color: 'default' },
  revoked: { label: 'Revoked', color: 'default' },
};

/**
 * The signed-in participant's own page: each enrolment (trial, participant code, team)
 * and, per brand its team allows, the connection's status with Authorize (off to the
 * provider's consent page) and Revoke (asked first).
 */
export function ParticipantPortal() {
  const enrolments = useMyEnrolments();
  // Right after logging in, the earlier "not signed in" answer is being asked again.
  if (enrolments.isPending || (enrolments.isError && enrolments.isFetching)) {
    return <CircularProgress size={24} />;
  }
  if (enrolments.isError) {
    return (
      <Alert severity="error" data-testid="participant-portal-error">
        {PORTAL_MESSAGES.loadFailed}
      </Alert>
    );
  }
  if (enrolments.data.length === 0) {
    return (
      <Typography data-testid="participant-portal-empty">{PORTAL_MESSAGES.noEnrolments}</Typography>
    );
  }
  return (
    <Stack spacing={2} data-testid="participant-portal">
      {enrolments.data.map((enrolment) => (
        <EnrolmentCard key={enrolment.participantId} enrolment={enrolment} />
      ))}
    </Stack>
  );
}

function EnrolmentCard({ enrolment }: { enrolment: PortalEnrolment }) {
  const notify = useNotify();
  const authorize = useAuthorizeMyDevice();
  const revoke = useRevokeMyDevice();
  const [error, setError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<DeviceConnection | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const busy = authorize.isPending || revoke.isPending;
  const request = (connection: DeviceConnection): MyDeviceRequest => ({
    participantId: enrolment.participantId,
    brand: connection.brand,
  });

  const handleAuthorize = async (connection: DeviceConnection) => {
    setError(null);
    try {
      window.location.assign(await authorize.mutateAsync(request(connection)));
    } catch (failure) {
      setError(userMessage(failure, DEVICE_MESSAGES.authorizationFailed));
    }
  };

  const handleRevoke = async (connection: DeviceConnection) => {
    setRevokeError(null);
    try {
      await revoke.mutateAsync(request(connection));
    } catch {
      setRevokeError(DEVICE_MESSAGES.revokeFailed);
      return;
    }
    notify(DEVICE_MESSAGES.revoked, 'success');
    setRevoking(null);
  };

  return (
    <Card variant="outlined" data-testid={`portal-enrolment-${enrolment.participantId}`}>
      <CardContent>
        <Stack spacing={1.5}>
          <div>
            <Typography variant="h3" component="h2">
              {enrolment.trialName}
            </Typography>
            <Typography variant="body2" color="text.secondary">
              Participant code: {enrolment.participantCode} · Team: {enrolment.teamName}
            </Typography>
          </div>
          {error && (
            <Alert severity="error" data-testid="portal-action-error">
              {error}
            </Alert>
          )}
          {enrolment.connections.map((connection) => {
            const status = STATUS[connection.status];
            const connected =
              connection.status === 'authorized' || connection.status === 'needs_reconsent';
            return (
              <Stack
                key={connection.brand}
                direction="row"
                spacing={1}
                sx={{ alignItems: 'center', flexWrap: 'wrap', rowGap: 1 }}
                data-testid={`portal-connection-${enrolment.participantId}-${connection.brand}`}
              >
                <Typography sx={{ minWidth: 80, fontWeight: 600 }}>{connection.brand}</Typography>
                <Chip size="small" color={status.color} label={status.label} />
                {connection.status !== 'authorized' && (
                  <Button
                    size="small"
                    variant="contained"
                    disabled={busy}
                    onClick={() => void handleAuthorize(connection)}
                  >
                    Authorize
                  </Button>
                )}
                {connected && (
                  <Button
                    size="small"
                    variant="outlined"
                    color="error"
                    disabled={busy}
                    onClick={() => {
                      setRevokeError(null);
                      setRevoking(connection);
                    }}
                  >
                    Revoke
                  </Button>
                )}
              </Stack>
            );
          })}
        </Stack>
      </CardContent>
      {revoking && (
        <ConfirmDialog
          title={`Revoke ${revoking.brand} access?`}
          confirmLabel="Revoke"
          onConfirm={() => void handleRevoke(revoking)}
          onClose={() => setRevoking(null)}
          pending={revoke.isPending}
          error={revokeError}
          testId="portal-revoke"
        >
          <Typography>
            Your study team will no longer receive {revoking.brand} data for {enrolment.trialName}.
            You can authorise again at any time.
          </Typography>
        </ConfirmDialog>
      )}
    </Card>
  );
}
