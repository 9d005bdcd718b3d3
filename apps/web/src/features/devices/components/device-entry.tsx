import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { AuthorisedDeviceEntry } from '@trialpulse/shared';
import { DEVICE_ERROR_TEXTS, formatDateTime } from '../utils/device-labels';
import { BatteryIcon } from './battery-icon';

type DeviceEntryProps = {
  entry: AuthorisedDeviceEntry;
  /** Show the last sync time (the /Participant sections; the table cell stays short). */
  showLastSync?: boolean;
  /** Given only to Sys_Admin: opens the participant's data from an errored entry. */
  onViewData?: () => void;
  testId?: string;
};

/**
 * One authorised device (battery icon, model, last sync) or one error entry. Devices that
 * report no battery level (Dexcom, Omron) get no icon rather than an "empty" one.
 */
export function DeviceEntry({ entry, showLastSync = false, onViewData, testId }: DeviceEntryProps) {
  if (entry.hasError) {
    return (
      <Stack spacing={0.5} sx={{ alignItems: 'flex-start' }} data-testid={testId}>
        <Typography variant="body2" color="error" data-error-type={entry.errorType ?? undefined}>
          {entry.device}: {DEVICE_ERROR_TEXTS[entry.errorType ?? 'server_error']}
        </Typography>
        {onViewData && (
          <Button size="small" variant="outlined" onClick={onViewData}>
            View Participant Data
          </Button>
        )}
      </Stack>
    );
  }
  const name = entry.deviceVersion || entry.deviceType || entry.device;
  return (
    <Stack direction="row" spacing={0.75} sx={{ alignItems: 'center' }} data-testid={testId}>
      {entry.batteryLevel !== null && <BatteryIcon level={entry.batteryLevel} />}
      <Typography variant="body2">{name}</Typography>
      {entry.batteryLevel === null && entry.battery && (
        <Typography variant="body2" color="text.secondary">
          · Battery {entry.battery}
        </Typography>
      )}
      {showLastSync && entry.lastSyncTime && (
        <Typography variant="body2" color="text.secondary">
          · Last sync {formatDateTime(entry.lastSyncTime)}
        </Typography>
      )}
    </Stack>
  );
}
