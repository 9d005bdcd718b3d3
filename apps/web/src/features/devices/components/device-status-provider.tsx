import { useMemo, type ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import {
  DEVICE_MESSAGES,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { useCan } from '@/lib/session';
import { useTeamAllowedBrands } from '@/lib/api/team-allowed-devices';
import { useDeviceStatusCycle } from '../hooks/use-device-status-cycle';
import { DeviceStatusContext } from './device-status-context';

const NO_BRANDS: readonly DeviceBrandName[] = [];

type DeviceStatusProviderProps = {
  participants: readonly Participant[];
  trial: Trial;
  children: ReactNode;
};

/**
 * Runs the device status cycle for a participants table and gives its rows' cells the
 * results (`DeviceStatusCell`). Shows the spec's banner when some checks failed; the
 * participants stay listed. Viewers are refused the device calls by the server, so for
 * them nothing is checked (the table leaves the column out too).
 */
export function DeviceStatusProvider({ participants, trial, children }: DeviceStatusProviderProps) {
  const canSee = useCan('device.connect');
  const brands = useTeamAllowedBrands();
  const allowed = brands.data ?? NO_BRANDS;
  const cycle = useDeviceStatusCycle(participants, {
    brands: allowed,
    enabled: canSee && brands.isSuccess,
  });
  const canViewErrorData = useCan('deviceError.viewData');
  const value = useMemo(
    () => ({ cycle, trial, brands: allowed, canViewErrorData }),
    [cycle, trial, allowed, canViewErrorData],
  );
  const loadFailed = canSee && participants.length > 0 && brands.isError;

  return (
    <DeviceStatusContext.Provider value={value}>
      {(cycle.someFailed || loadFailed) && (
        <Alert severity="warning" data-testid="device-status-banner">
          {loadFailed ? DEVICE_MESSAGES.errorLoadingDevices : DEVICE_MESSAGES.someDeviceInfoFailed}
        </Alert>
      )}
      {children}
    </DeviceStatusContext.Provider>
  );
}
