import { useEffect, useMemo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import CircularProgress from '@mui/material/CircularProgress';
import DialogContentText from '@mui/material/DialogContentText';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import {
  LIMITS,
  METRICS_MESSAGES,
  METRIC_DEVICE_TYPES,
  formatRetention,
  metricsErrorText,
  type StorageMetric,
} from '@trialpulse/shared';
import { useSession } from '@/lib/session';
import { userMessage } from '@/lib/api-client';
import {
  getStoredReadings,
  useSaveSelections,
  useSelections,
  useStorageDevices,
  useStorageMetrics,
  useTeamRetention,
} from '../api/data-storage';

const reasonOf = (error: unknown) => userMessage(error, METRICS_MESSAGES.unknownError);
type PendingRemoval = { key: string; name: string; readings: number | null };

/**
 * /TeamDataRetention 'Data Storage & Retention Settings' (Sys_Admin, Admin): the team's
 * retention period (read-only) and, per device, which of the metrics the system
 * administrator enabled the team keeps (device-data spec §2, §4, §8). Beyond the spec, a
 * removal first shows how many stored readings the next purge will delete.
 */
export function TeamDataRetentionPage() {
  const { user } = useSession();
  // The selected team (the session may carry it as text).
  const teamId = user?.teamId === null || user?.teamId === undefined ? null : Number(user.teamId);
  const devices = useStorageDevices(teamId);
  const retention = useTeamRetention(teamId);
  const [deviceId, setDeviceId] = useState<number | null>(null);
  const device = devices.data?.find((entry) => entry.team_supported_device_id === deviceId) ?? null;
  // Only a type the metric catalog knows has metrics to choose from.
  const deviceType =
    device?.device_type && (METRIC_DEVICE_TYPES as readonly string[]).includes(device.device_type)
      ? device.device_type
      : null;
  const metrics = useStorageMetrics(deviceType);
  const selections = useSelections(teamId, deviceType);
  const save = useSaveSelections();

  const stored = useMemo(
    () =>
      new Set((selections.data ?? []).filter((row) => row.is_enabled).map((row) => row.metric_key)),
    [selections.data],
  );
  const added = useMemo(
    () => new Set((selections.data ?? []).map((row) => row.metric_key)),
    [selections.data],
  );
  const listed = useMemo(
    () => (metrics.data ?? []).filter((metric) => added.has(metric.metric_key)),
    [metrics.data, added],
  );
  const [saveError, setSaveError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);

  useEffect(() => {
    if (!saved) return;
    const timer = setTimeout(() => setSaved(false), LIMITS.changesSavedMs);
    return () => clearTimeout(timer);
  }, [saved]);

  const commit = async (adds: StorageMetric[], removals: string[]) => {
    if (teamId === null || deviceType === null) return;
    setSaveError(null);
    setSaved(false);
    try {
      await save.mutateAsync({
        teamId,
        deviceType,
        adds: adds.map((metric) => ({
          metric_key: metric.metric_key,
          metric_name: metric.metric_name,
          units: metric.units,
          device_metric_id: metric.id,
        })),
        removals,
      });
      setSaved(true);
    } catch (error) {
      setSaveError(metricsErrorText.saveChanges(reasonOf(error)));
    }
  };

  const loadError = devices.isError
    ? metricsErrorText.fetchSupportedDevices(reasonOf(devices.error))
    : retention.isError
      ? metricsErrorText.fetchRetention(reasonOf(retention.error))
      : metrics.isError
        ? metricsErrorText.fetchAvailableMetrics(reasonOf(metrics.error))
        : selections.isError
          ? metricsErrorText.fetchCurrentSelections(reasonOf(selections.error))
          : null;

  return (
    <Stack spacing={3} data-testid="team-data-retention-page">
      <Typography variant="h1" component="h1" data-testid="page-title">
        Data Storage &amp; Retention Settings
      </Typography>
      {(saveError ?? loadError) && (
        <Alert severity="error" data-testid="retention-banner">
          {saveError ?? loadError}
        </Alert>
      )}
      <Paper variant="outlined" sx={{ p: 2 }}>
        <Typography data-testid="team-retention">
          {retention.isPending ? '' : formatRetention(retention.data?.retention_days)}
        </Typography>
      </Paper>
      {devices.data?.length === 0 ? (
        <Typography data-testid="no-supported-devices">
          {METRICS_MESSAGES.noSupportedDevices}
        </Typography>
      ) : (
        <TextField
          select
          label="Device"
          value={deviceId ?? ''}
          onChange={(event) => {
            setDeviceId(Number(event.target.value));
            setSaveError(null);
          }}
          sx={{ maxWidth: 420 }}
          slotProps={{
            select: { SelectDisplayProps: { 'data-testid': 'retention-device-select' } as object },
          }}
        >
          {(devices.data ?? []).map((entry) => (
            <MenuItem
              key={entry.team_supported_device_id}
              value={entry.team_supported_device_id}
              data-testid={`retention-device-option-${entry.team_supported_device_id}`}
            >
              {entry.device_name} ({entry.device_type ?? 'no type'})
            </MenuItem>
          ))}
        </TextField>
      )}
      {device && (deviceType === null || metrics.data?.length === 0) && (
        <Typography data-testid="retention-message">{METRICS_MESSAGES.noMetricsForType}</Typography>
      )}
      {device && deviceType !== null && (metrics.isPending || selections.isPending) && (
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <CircularProgress size={20} />
          <Typography>{METRICS_MESSAGES.loadingMetrics}</Typography>
        </Stack>
      )}
      {device &&
        metrics.data &&
        metrics.data.length > 0 &&
        selections.data &&
        listed.length === 0 && (
          <Typography data-testid="retention-message">{METRICS_MESSAGES.noMetricsAdded}</Typography>
        )}
      {device && deviceType !== null && teamId !== null && listed.length > 0 && (
        // Reloaded selections (after a save) start a fresh working set.
        <MetricSelection
          key={`${device.team_supported_device_id}:${selections.dataUpdatedAt}`}
          teamId={teamId}
          deviceType={deviceType}
          listed={listed}
          stored={stored}
          saving={save.isPending}
          saved={saved}
          onCommit={commit}
        />
      )}
    </Stack>
  );
}

/** The metrics table, its count and save bar, and the removal dialog. */
function MetricSelection({
  teamId,
  deviceType,
  listed,
  stored,
  saving,
  saved,
  onCommit,
}: {
  teamId: number;
  deviceType: string;
  listed: StorageMetric[];
  stored: Set<string>;
  saving: boolean;
  saved: boolean;
  onCommit: (adds: StorageMetric[], removals: string[]) => Promise<void>;
}) {
  const [selected, setSelected] = useState<Set<string>>(() => new Set(stored));
  const [removals, setRemovals] = useState<PendingRemoval[] | null>(null);
  const adds = listed.filter(
    (metric) => selected.has(metric.metric_key) && !stored.has(metric.metric_key),
  );
  const removed = listed.filter(
    (metric) => !selected.has(metric.metric_key) && stored.has(metric.metric_key),
  );
  const dirty = adds.length + removed.length > 0;
  const allChecked = listed.length > 0 && listed.every((metric) => selected.has(metric.metric_key));
  const someChecked = listed.some((metric) => selected.has(metric.metric_key));
  const enabledCount = listed.filter((metric) => selected.has(metric.metric_key)).length;

  const commit = async () => {
    setRemovals(null);
    await onCommit(
      adds,
      removed.map((metric) => metric.metric_key),
    );
  };

  const onSave = async () => {
    if (removed.length === 0) return commit();
    // Say what the next purge will delete before anything is removed.
    const pending = removed.map((metric) => ({
      key: metric.metric_key,
      name: metric.metric_name,
      readings: null,
    }));
    setRemovals(pending);
    const counted = await Promise.all(
      pending.map(async (entry) => ({
        ...entry,
        readings: await getStoredReadings(teamId, deviceType, entry.key).catch(() => null),
      })),
    );
    setRemovals((current) => (current ? counted : current));
  };

  return (
    <>
      <Stack spacing={2}>
        <Typography data-testid="enabled-count">
          {enabledCount} of {listed.length} metrics enabled
        </Typography>
        <TableContainer component={Paper} variant="outlined">
          <Table size="small" aria-label="Metrics">
            <TableHead>
              <TableRow>
                <TableCell padding="checkbox">
                  <Checkbox
                    checked={allChecked}
                    indeterminate={someChecked && !allChecked}
                    onChange={() =>
                      setSelected(
                        allChecked ? new Set() : new Set(listed.map((metric) => metric.metric_key)),
                      )
                    }
                    slotProps={{ input: { 'aria-label': 'Select all metrics' } }}
                    data-testid="retention-select-all"
                  />
                </TableCell>
                <TableCell>Metric</TableCell>
                <TableCell>Category</TableCell>
                <TableCell>Description</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {listed.map((metric) => (
                <TableRow
                  key={metric.metric_key}
                  data-testid={`retention-row-${metric.metric_key}`}
                >
                  <TableCell padding="checkbox">
                    <Checkbox
                      checked={selected.has(metric.metric_key)}
                      onChange={() =>
                        setSelected((current) => {
                          const next = new Set(current);
                          if (next.has(metric.metric_key)) next.delete(metric.metric_key);
                          else next.add(metric.metric_key);
                          return next;
                        })
                      }
                      slotProps={{ input: { 'aria-label': `Keep ${metric.metric_name}` } }}
                      data-testid={`retention-check-${metric.metric_key}`}
                    />
                  </TableCell>
                  <TableCell>{metric.metric_name}</TableCell>
                  <TableCell>{metric.category ?? ''}</TableCell>
                  <TableCell>{metric.description ?? ''}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
        <Paper variant="outlined" sx={{ p: 1.5 }}>
          <Stack
            direction="row"
            spacing={2}
            sx={{ alignItems: 'center', justifyContent: 'flex-end' }}
          >
            {saved && (
              <Typography color="success.main" sx={{ flexGrow: 1 }} data-testid="changes-saved">
                {METRICS_MESSAGES.changesSaved}
              </Typography>
            )}
            <Button
              onClick={() => setSelected(new Set(stored))}
              disabled={!dirty || saving}
              data-testid="discard-changes"
            >
              Discard
            </Button>
            <Button
              variant="contained"
              onClick={() => void onSave()}
              disabled={!dirty || saving}
              data-testid="save-retention"
            >
              {saving ? METRICS_MESSAGES.saving : 'Save Changes'}
            </Button>
          </Stack>
        </Paper>
      </Stack>
      {removals !== null && (
        <ConfirmDialog
          title="Stop storing these metrics?"
          confirmLabel="Remove and save"
          onConfirm={() => void commit()}
          onClose={() => setRemovals(null)}
          pending={false}
          testId="remove-metrics"
          confirmTestId="confirm-removal"
        >
          <DialogContentText>
            New readings of these metrics will no longer be stored. The next purge deletes the
            readings already stored:
          </DialogContentText>
          <List dense>
            {removals.map((entry) => (
              <ListItem key={entry.key} data-testid={`purge-count-${entry.key}`}>
                {entry.name}:{' '}
                {entry.readings === null
                  ? 'counting stored readings...'
                  : `${entry.readings.toLocaleString('en')} stored ${entry.readings === 1 ? 'reading' : 'readings'} will be deleted`}
              </ListItem>
            ))}
          </List>
        </ConfirmDialog>
      )}
    </>
  );
}
