import { useCallback, useState } from 'react';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { DEVICE_MESSAGES, type DeviceConnection } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { useDeviceConnections } from '../api/get-device-connections';
import { useRefreshDeviceToken } from '../api/refresh-device-token';
import { useRevokeDeviceToken } from '../api/revoke-device-token';
import { DeviceConnectionsTable } from '../components/device-connections-table';
import { RevokeDeviceDialog } from '../components/revoke-device-dialog';

/** The brands with a token management page (device-data spec §2). */
export type TokenPageBrand = 'Fitbit' | 'Omron';

/** /FitbitManageParticipantToken (Sys_Admin, Admin). */
export function FitbitTokensPage() {
  return <ManageDeviceTokensPage brand="Fitbit" />;
}

/** /OmronManageParticipantToken (Sys_Admin, Admin). */
export function OmronTokensPage() {
  return <ManageDeviceTokensPage brand="Omron" />;
}

/**
 * /FitbitManageParticipantToken and /OmronManageParticipantToken (Sys_Admin, Admin): the
 * current team's connections of the brand with Refresh and Revoke (asked first); the list
 * is read again after each action.
 */
export function ManageDeviceTokensPage({ brand }: { brand: TokenPageBrand }) {
  const notify = useNotify();
  const connections = useDeviceConnections(brand);
  const { mutateAsync: refreshToken } = useRefreshDeviceToken();
  const revoke = useRevokeDeviceToken();
  const [banner, setBanner] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<DeviceConnection | null>(null);
  const [revokeError, setRevokeError] = useState<string | null>(null);
  const [busyParticipantId, setBusyParticipantId] = useState<number | null>(null);

  const handleRefresh = useCallback(
    ({ participantId }: DeviceConnection) => {
      setBanner(null);
      setBusyParticipantId(participantId);
      refreshToken({ brand, participantId })
        .then(() => notify(DEVICE_MESSAGES.refreshed, 'success'))
        .catch(() => setBanner(DEVICE_MESSAGES.refreshFailed))
        .finally(() => setBusyParticipantId(null));
    },
    [brand, notify, refreshToken],
  );

  const openRevoke = useCallback((connection: DeviceConnection) => {
    setBanner(null);
    setRevokeError(null);
    setRevoking(connection);
  }, []);

  const handleRevoke = async (connection: DeviceConnection) => {
    setRevokeError(null);
    try {
      await revoke.mutateAsync({ brand, participantId: connection.participantId });
    } catch {
      setRevokeError(DEVICE_MESSAGES.revokeFailed);
      return;
    }
    notify(DEVICE_MESSAGES.revoked, 'success');
    setRevoking(null);
  };

  return (
    <Stack spacing={3} data-testid="device-tokens-page">
      <div>
        <Typography variant="h1" component="h1">
          {brand} Token Management
        </Typography>
        <Typography color="text.secondary" sx={{ mt: 0.5 }}>
          The access tokens your team holds for {brand}, one row per participant.
        </Typography>
      </div>
      {banner && (
        <Alert severity="error" onClose={() => setBanner(null)} data-testid="device-tokens-error">
          {banner}
        </Alert>
      )}
      {connections.isError ? (
        <Alert severity="error" data-testid="device-tokens-load-error">
          {DEVICE_MESSAGES.errorLoadingDevices}
        </Alert>
      ) : (
        <DeviceConnectionsTable
          brand={brand}
          connections={connections.data ?? []}
          isLoading={connections.isPending}
          busyParticipantId={busyParticipantId}
          onRefresh={handleRefresh}
          onRevoke={openRevoke}
        />
      )}
      {revoking && (
        <RevokeDeviceDialog
          brand={brand}
          participantCode={revoking.participantCode}
          submitting={revoke.isPending}
          error={revokeError}
          onConfirm={() => void handleRevoke(revoking)}
          onClose={() => setRevoking(null)}
        />
      )}
    </Stack>
  );
}
