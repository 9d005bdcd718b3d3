import { useState } from 'react';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { METRICS_MESSAGES, metricsErrorText, type DeviceSettingsPut } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { ALL_DEVICE_TYPES, useAvailableMetrics } from '../api/get-available-metrics';
import { useDeviceSettings } from '../api/get-device-settings';
import { useTeamDevices } from '../api/get-team-devices';
import { useTeams } from '../api/get-teams';
import { usePutDeviceSettings } from '../api/put-device-settings';
import { AvailableMetricsTable } from '../components/available-metrics-table';
import { DeviceSettingsTable, type SettingsChange } from '../components/device-settings-table';

const reasonOf = (error: unknown) => userMessage(error, METRICS_MESSAGES.unknownError);

function InstructionsPanel() {
  return (
    <Paper variant="outlined" sx={{ p: 2 }} data-testid="instructions-panel">
      <Typography variant="h2" component="h2" sx={{ fontSize: '1.1rem', mb: 1 }}>
        Configure which device metrics teams can store
      </Typography>
      <List dense sx={{ listStyleType: 'decimal', pl: 3 }}>
        <ListItem sx={{ display: 'list-item' }}>Pick a team.</ListItem>
        <ListItem sx={{ display: 'list-item' }}>Pick one of the team's devices.</ListItem>
        <ListItem sx={{ display: 'list-item' }}>
          Tick or untick the metrics the team may store.
        </ListItem>
        <ListItem sx={{ display: 'list-item' }}>Save.</ListItem>
      </List>
      <Typography variant="body2" color="text.secondary">
        Note: teams cannot retain data for metrics that have not been enabled by a system
        administrator.
      </Typography>
    </Paper>
  );
}

/**
 * /DeviceMetricsManager (Sys_Admin): which metrics each team device may store (device-data
 * spec §2, §4, §5, §8). A device with a type and available metrics shows the 'Available
 * Metrics' checkboxes; otherwise the editable 'Device Settings' table.
 */
export function DeviceMetricsManagerPage() {
  const notify = useNotify();
  const [teamId, setTeamId] = useState<number | null>(null);
  const [deviceId, setDeviceId] = useState<number | null>(null);
  const [banner, setBanner] = useState<string | null>(null);
  const teams = useTeams();
  const devices = useTeamDevices(teamId);
  const device = devices.data?.find((entry) => entry.id === deviceId) ?? null;
  const deviceType = device?.device_type?.trim() ? device.device_type : ALL_DEVICE_TYPES;
  const settings = useDeviceSettings(teamId, device ? deviceId : null);
  const metrics = useAvailableMetrics(teamId, device ? deviceId : null, deviceType);
  const put = usePutDeviceSettings();

  const availableMode =
    deviceType !== ALL_DEVICE_TYPES && (metrics.data ?? []).some((metric) => metric.available);

  const save = async (
    list: DeviceSettingsPut['settings'],
    change: SettingsChange | { kind: 'selections' },
  ): Promise<boolean> => {
    if (teamId === null || deviceId === null) return false;
    setBanner(null);
    try {
      const answer = await put.mutateAsync({ teamId, deviceId, settings: list });
      notify(answer.message, 'success');
      return true;
    } catch (error) {
      const reason = reasonOf(error);
      setBanner(
        change.kind === 'selections'
          ? metricsErrorText.saveSelections(reason)
          : change.kind === 'save'
            ? metricsErrorText.saveChanges(reason)
            : change.kind === 'status'
              ? metricsErrorText.setStatus(change.action, reason)
              : change.kind === 'delete-one'
                ? metricsErrorText.deleteSetting(reason)
                : metricsErrorText.deleteSettings(reason),
      );
      return false;
    }
  };

  const loadError = teams.isError
    ? metricsErrorText.fetchTeams(reasonOf(teams.error))
    : devices.isError
      ? metricsErrorText.fetchDevices(reasonOf(devices.error))
      : settings.isError
        ? metricsErrorText.fetchDeviceSettings(reasonOf(settings.error))
        : metrics.isError
          ? metricsErrorText.fetchAvailableMetrics(reasonOf(metrics.error))
          : null;
  const shownBanner = banner ?? loadError;
  const loading = device !== null && (settings.isPending || metrics.isPending);

  return (
    <Stack spacing={3} data-testid="device-metrics-page">
      <Typography variant="h1" component="h1" data-testid="page-title">
        Device Metrics Manager
      </Typography>
      <InstructionsPanel />
      {shownBanner && (
        <Alert
          severity="error"
          onClose={banner ? () => setBanner(null) : undefined}
          data-testid="metrics-banner"
        >
          {shownBanner}
        </Alert>
      )}
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
        <TextField
          select
          label="Team"
          value={teamId ?? ''}
          onChange={(event) => {
            // A new team clears the device and loads that team's devices (§4).
            setTeamId(Number(event.target.value));
            setDeviceId(null);
            setBanner(null);
          }}
          sx={{ minWidth: 280 }}
          slotProps={{ select: { SelectDisplayProps: { 'data-testid': 'team-select' } as object } }}
        >
          {(teams.data ?? []).map((team) => (
            <MenuItem
              key={team.team_id}
              value={team.team_id}
              data-testid={`team-option-${team.team_id}`}
            >
              {team.team_name} (ID: {team.team_id})
            </MenuItem>
          ))}
        </TextField>
        <TextField
          select
          label="Device"
          value={deviceId ?? ''}
          disabled={teamId === null}
          onChange={(event) => {
            setDeviceId(Number(event.target.value));
            setBanner(null);
          }}
          sx={{ minWidth: 320 }}
          slotProps={{
            select: { SelectDisplayProps: { 'data-testid': 'device-select' } as object },
          }}
        >
          {devices.data?.length === 0 && (
            <MenuItem disabled value="">
              {METRICS_MESSAGES.noDevicesForTeam}
            </MenuItem>
          )}
          {(devices.data ?? []).map((entry) => (
            <MenuItem key={entry.id} value={entry.id} data-testid={`device-option-${entry.id}`}>
              {entry.device_name} (Catalog ID: {entry.global_device_catalog_id})
            </MenuItem>
          ))}
        </TextField>
      </Stack>
      {teamId !== null && devices.data?.length === 0 && (
        <Typography data-testid="no-devices">{METRICS_MESSAGES.noDevicesForTeam}</Typography>
      )}
      {loading && (
        <Stack
          direction="row"
          spacing={1}
          sx={{ alignItems: 'center' }}
          data-testid="settings-loading"
        >
          <CircularProgress size={20} />
          <Typography>{METRICS_MESSAGES.loadingSettings}</Typography>
        </Stack>
      )}
      {device &&
        settings.data &&
        metrics.data &&
        // A new device (or reloaded settings) resets every edit state (§4).
        (availableMode ? (
          <AvailableMetricsTable
            key={`${device.id}:${settings.dataUpdatedAt}`}
            metrics={metrics.data}
            settings={settings.data}
            saving={put.isPending}
            onSave={(list) => save(list, { kind: 'selections' })}
          />
        ) : (
          <DeviceSettingsTable
            key={`${device.id}:${settings.dataUpdatedAt}`}
            settings={settings.data}
            metrics={metrics.data}
            saving={put.isPending}
            onSave={save}
            onBanner={setBanner}
          />
        ))}
    </Stack>
  );
}
