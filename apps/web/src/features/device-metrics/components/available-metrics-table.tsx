import { useMemo, useState } from 'react';
import Checkbox from '@mui/material/Checkbox';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import type { AvailableMetric, DeviceMetricSetting, DeviceSettingsPut } from '@trialpulse/shared';
import { UnsavedStatusBar } from './unsaved-status-bar';

type Props = {
  metrics: AvailableMetric[];
  settings: DeviceMetricSetting[];
  saving: boolean;
  onSave: (settings: DeviceSettingsPut['settings']) => Promise<boolean>;
};

/**
 * 'Available Metrics' mode: the device type's available catalog metrics as a checkbox list;
 * the ticked set is compared with the stored one and Save sends the whole list (kept rows
 * unchanged, new rows enabled with the metric's default retention).
 */
export function AvailableMetricsTable({ metrics, settings, saving, onSave }: Props) {
  const available = useMemo(() => metrics.filter((metric) => metric.available), [metrics]);
  const stored = useMemo(() => new Set(settings.map((setting) => setting.metric_key)), [settings]);
  const [selected, setSelected] = useState<Set<string>>(() => new Set(stored));
  const added = [...selected].filter((key) => !stored.has(key)).length;
  const removed = [...stored].filter((key) => !selected.has(key)).length;
  const allChecked =
    available.length > 0 && available.every((metric) => selected.has(metric.metric_key));
  const someChecked = available.some((metric) => selected.has(metric.metric_key));

  const toggle = (key: string) =>
    setSelected((current) => {
      const next = new Set(current);
      if (next.has(key)) next.delete(key);
      else next.add(key);
      return next;
    });

  const save = async () => {
    const list = available
      .filter((metric) => selected.has(metric.metric_key))
      .map((metric) => {
        const existing = settings.find((setting) => setting.metric_key === metric.metric_key);
        return existing
          ? {
              metric_key: existing.metric_key,
              metric_name: existing.metric_name,
              metric_units: existing.metric_units,
              is_enabled: existing.is_enabled,
              retention_days: existing.retention_days,
            }
          : {
              metric_key: metric.metric_key,
              metric_name: metric.metric_name,
              metric_units: metric.units,
              is_enabled: true,
              retention_days: metric.default_retention_days,
            };
      });
    // Stored rows of metrics no longer offered by the catalog stay unless unticked.
    const kept = settings
      .filter((setting) => selected.has(setting.metric_key))
      .filter((setting) => !available.some((metric) => metric.metric_key === setting.metric_key))
      .map(({ metric_key, metric_name, metric_units, is_enabled, retention_days }) => ({
        metric_key,
        metric_name,
        metric_units,
        is_enabled,
        retention_days,
      }));
    await onSave([...list, ...kept]);
  };

  return (
    <Stack spacing={2} data-testid="available-metrics">
      <UnsavedStatusBar
        counts={[
          { label: 'new', value: added },
          { label: 'removed', value: removed },
        ]}
        saving={saving}
        onSave={() => void save()}
        onCancel={() => setSelected(new Set(stored))}
      />
      <Typography variant="h2" component="h2" sx={{ fontSize: '1.25rem' }}>
        Available Metrics
      </Typography>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label="Available Metrics">
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  checked={allChecked}
                  indeterminate={someChecked && !allChecked}
                  onChange={() =>
                    setSelected(
                      allChecked
                        ? new Set()
                        : new Set(available.map((metric) => metric.metric_key)),
                    )
                  }
                  slotProps={{ input: { 'aria-label': 'Select all metrics' } }}
                  data-testid="available-select-all"
                />
              </TableCell>
              <TableCell>Metric Name</TableCell>
              <TableCell>Units</TableCell>
              <TableCell>Enabled</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {available.map((metric) => {
              const setting = settings.find((row) => row.metric_key === metric.metric_key);
              return (
                <TableRow
                  key={metric.metric_key}
                  hover
                  data-testid={`available-row-${metric.metric_key}`}
                >
                  <TableCell padding="checkbox">
                    <Checkbox
                      checked={selected.has(metric.metric_key)}
                      onChange={() => toggle(metric.metric_key)}
                      slotProps={{ input: { 'aria-label': `Select ${metric.metric_name}` } }}
                      data-testid={`available-check-${metric.metric_key}`}
                    />
                  </TableCell>
                  <TableCell>{metric.metric_name}</TableCell>
                  <TableCell>{metric.units ?? ''}</TableCell>
                  <TableCell>{setting?.is_enabled ? 'Yes' : 'No'}</TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>
    </Stack>
  );
}
