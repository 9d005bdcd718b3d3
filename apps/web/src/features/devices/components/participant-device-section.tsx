import { useState } from 'react';
import { useNavigate } from 'react-router';
import { ZodError } from 'zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Chip, { type ChipProps } from '@mui/material/Chip';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  CONSENT_LINK_BRANDS,
  DEVICE_MESSAGES,
  GENERIC_ERROR_MESSAGE,
  type ConnectionStatus,
  type DeviceBrandName,
  type DeviceConnection,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { isApiError, userMessage } from '@/lib/api-client';
import { useCan } from '@/lib/session';
import { useParticipantConnections } from '../api/get-participant-connections';
import { useParticipantDevices, type DeviceListBrand } from '../api/get-participant-devices';
import { useRefreshDeviceToken } from '../api/refresh-device-token';
import { useRevokeDeviceToken } from '../api/revoke-device-token';
import { useSendConsentEmail } from '@/lib/api/consent-email';
import { useStartDeviceAuthorization } from '../api/start-device-authorization';
import { SyncStatusDetails } from './sync-status-details';
import { CONNECTION_STATUS_LABELS, UPSTREAM_LABELS, formatDateTime } from '../utils/device-labels';
import { DEVICE_PATHS } from '../utils/paths';
import { DeviceEntry } from './device-entry';
import { RevokeDeviceDialog } from './revoke-device-dialog';

type ParticipantDeviceSectionProps = {
  participant: Participant;
  trial: Trial | null;
  brand: DeviceBrandName;
  /** After a revoke: back to the trial page (access spec §2). */
  onRevoked: () => void;
};

const STATUS_COLORS: Record<ConnectionStatus, ChipProps['color']> = {
  authorized: 'success',
  needs_reconsent: 'warning',
  revoked: 'default',
  not_authorized: 'default',
};

/**
 * The body of one brand's section on /Participant: status, upstream (Fitbit), date of
 * authorisation, devices with battery (Fitbit, Dexcom), and for Sys_Admin, Admin and
 * User the token actions — refresh, revoke (asked first, then back to the trial page),
 * a consent link by email (Fitbit, Omron) and authorising with the participant present.
 */
export function ParticipantDeviceSection({
  participant,
  trial,
  brand,
  onRevoked,
}: ParticipantDeviceSectionProps) {
  const connections = useParticipantConnections(participant.id);
  if (connections.isPending) return <CircularProgress size={20} />;
  if (connections.isError) {
    return (
      <Alert severity="error" data-testid={`device-section-error-${brand}`}>
        {connectionsErrorMessage(connections.error)}
      </Alert>
    );
  }
  const connection = connections.data.find((candidate) => candidate.brand === brand) ?? null;
  return (
    <ConnectionDetails
      participant={participant}
      trial={trial}
      brand={brand}
      connection={connection}
      onRevoked={onRevoked}
    />
  );
}

function ConnectionDetails({
  participant,
  trial,
  brand,
  connection,
  onRevoked,
}: ParticipantDeviceSectionProps & { connection: DeviceConnection | null }) {
  const navigate = useNavigate();
  const notify = useNotify();
  const refresh = useRefreshDeviceToken();
  const revoke = useRevokeDeviceToken();
  const sendConsent = useSendConsentEmail();
  const startAuthorization = useStartDeviceAuthorization();
  const [actionError, setActionError] = useState<string | null>(null);
  const [revoking, setRevoking] = useState(false);
  const [revokeError, setRevokeError] = useState<string | null>(null);

  const canAct = useCan('device.connect');
  const status = connection?.status ?? 'not_authorized';
  const upstream = connection?.upstream ?? null;
  const authorized = status === 'authorized';
  // A legacy Fitbit grant, or one the provider refused, needs a new consent (Google Health).
  const needsNewConsent =
    brand === 'Fitbit' && (status === 'needs_reconsent' || upstream === 'fitbit-legacy');
  const canLink = !authorized || needsNewConsent;
  const canSendLink = (CONSENT_LINK_BRANDS as readonly string[]).includes(brand);
  const listBrand: DeviceListBrand | null = brand === 'Omron' ? null : brand;
  const busy =
    refresh.isPending || revoke.isPending || sendConsent.isPending || startAuthorization.isPending;
  const request = { brand, participantId: participant.id };
  const navigationState = trial ? { participant, trial } : { participant };

  const run = async (action: () => Promise<void>, failure: (error: unknown) => string) => {
    setActionError(null);
    try {
      await action();
    } catch (error) {
      setActionError(failure(error));
    }
  };

  const handleRefresh = () =>
    run(
      async () => {
        await refresh.mutateAsync(request);
        notify(DEVICE_MESSAGES.refreshed, 'success');
      },
      () => DEVICE_MESSAGES.refreshFailed,
    );

  const handleSendConsent = () =>
    run(
      async () => {
        if (brand === 'Dexcom') return;
        const answer = await sendConsent.mutateAsync({ participantId: participant.id, brand });
        notify(answer.message || DEVICE_MESSAGES.consentEmailSent, 'success');
      },
      (error) => userMessage(error, GENERIC_ERROR_MESSAGE),
    );

  const handleAuthorize = () => {
    if (brand === 'Fitbit') {
      void navigate(DEVICE_PATHS.fitbitParticipantConsent, { state: navigationState });
    } else if (brand === 'Dexcom') {
      void navigate(DEVICE_PATHS.dexcomParticipantConsent, { state: navigationState });
    } else {
      void run(
        async () => {
          window.location.assign(await startAuthorization.mutateAsync(request));
        },
        (error) => userMessage(error, DEVICE_MESSAGES.authorizationFailed),
      );
    }
  };

  const handleRevoke = async () => {
    setRevokeError(null);
    try {
      await revoke.mutateAsync(request);
    } catch {
      setRevokeError(DEVICE_MESSAGES.revokeFailed);
      return;
    }
    notify(DEVICE_MESSAGES.revoked, 'success');
    setRevoking(false);
    onRevoked();
  };

  return (
    <Stack spacing={1.5} sx={{ mt: 1 }} data-testid={`device-connection-${brand}`}>
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Chip
          size="small"
          color={STATUS_COLORS[status]}
          label={CONNECTION_STATUS_LABELS[status]}
          data-testid={`device-status-label-${brand}`}
        />
      </Stack>
      {brand === 'Fitbit' && upstream && (
        <Typography variant="body2" data-testid="device-upstream-Fitbit">
          Data source: {UPSTREAM_LABELS[upstream]}
        </Typography>
      )}
      {connection?.authorizationDate && (
        <Typography variant="body2" data-testid={`device-authorization-date-${brand}`}>
          Authorized on: {formatDateTime(connection.authorizationDate)}
        </Typography>
      )}
      {connection && status !== 'not_authorized' && (
        <SyncStatusDetails participantId={participant.id} brand={brand} />
      )}
      {listBrand && authorized && (
        <AuthorisedDevices brand={listBrand} participantId={participant.id} />
      )}
      {actionError && (
        <Alert severity="error" data-testid={`device-action-error-${brand}`}>
          {actionError}
        </Alert>
      )}
      {canAct && (
        <Stack direction="row" sx={{ flexWrap: 'wrap', gap: 1 }}>
          {authorized && (
            <Button
              size="small"
              variant="outlined"
              disabled={busy}
              onClick={() => void handleRefresh()}
            >
              Refresh token
            </Button>
          )}
          {(authorized || status === 'needs_reconsent') && (
            <Button
              size="small"
              variant="outlined"
              color="error"
              disabled={busy}
              onClick={() => {
                setRevokeError(null);
                setRevoking(true);
              }}
            >
              Revoke access
            </Button>
          )}
          {canLink && canSendLink && (
            <Button
              size="small"
              variant="outlined"
              disabled={busy}
              onClick={() => void handleSendConsent()}
            >
              {needsNewConsent ? 'Send new consent link' : 'Send consent link'}
            </Button>
          )}
          {canLink && (
            <Button size="small" variant="contained" disabled={busy} onClick={handleAuthorize}>
              Authorize with participant present
            </Button>
          )}
        </Stack>
      )}
      {revoking && (
        <RevokeDeviceDialog
          brand={brand}
          participantCode={participant.participant_code}
          submitting={revoke.isPending}
          error={revokeError}
          onConfirm={() => void handleRevoke()}
          onClose={() => setRevoking(false)}
        />
      )}
    </Stack>
  );
}

/** The devices of an authorised Fitbit or Dexcom connection, with their battery. */
function AuthorisedDevices({
  brand,
  participantId,
}: {
  brand: DeviceListBrand;
  participantId: number;
}) {
  const devices = useParticipantDevices(brand, participantId, true);
  if (devices.isPending) return <CircularProgress size={20} />;
  if (devices.isError) {
    return (
      <Alert severity="error" data-testid={`device-list-error-${brand}`}>
        {devices.error instanceof ZodError
          ? DEVICE_MESSAGES.invalidDataFormat
          : DEVICE_MESSAGES.errorLoadingDevices}
      </Alert>
    );
  }
  if (devices.data.length === 0) {
    return (
      <Typography variant="body2" color="text.secondary">
        No devices reported yet.
      </Typography>
    );
  }
  return (
    <Stack spacing={0.75} data-testid={`device-list-${brand}`}>
      {devices.data.map((entry, index) => (
        <DeviceEntry key={index} entry={entry} showLastSync />
      ))}
    </Stack>
  );
}

function connectionsErrorMessage(error: unknown): string {
  if (error instanceof ZodError) return DEVICE_MESSAGES.invalidDataFormat;
  if (isApiError(error) && error.status === 404) return DEVICE_MESSAGES.participantNotFound;
  return DEVICE_MESSAGES.errorLoadingDevices;
}
