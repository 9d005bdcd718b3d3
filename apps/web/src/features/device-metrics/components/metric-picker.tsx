import Autocomplete from '@mui/material/Autocomplete';
import TextField from '@mui/material/TextField';
import { METRICS_MESSAGES, type AvailableMetric } from '@trialpulse/shared';

/**
 * The searchable metric dropdown of an edited row: available metrics not used in other
 * rows, grouped by device type, sorted by type then name (device-data spec §2, §5).
 */
export function MetricPicker({
  metrics,
  usedKeys,
  value,
  error,
  onChange,
  testId,
}: {
  metrics: AvailableMetric[];
  usedKeys: Set<string>;
  value: { metric_key: string; metric_name: string };
  error?: string;
  onChange: (metric: AvailableMetric | null) => void;
  testId: string;
}) {
  const options = metrics
    .filter((metric) => metric.available && !usedKeys.has(metric.metric_key))
    .sort(
      (a, b) =>
        a.device_type.localeCompare(b.device_type) || a.metric_name.localeCompare(b.metric_name),
    );
  const selected =
    metrics.find(
      (metric) =>
        metric.metric_key === value.metric_key && metric.metric_name === value.metric_name,
    ) ??
    metrics.find((metric) => metric.metric_key === value.metric_key) ??
    null;
  return (
    <Autocomplete
      size="small"
      options={options}
      value={selected}
      groupBy={(metric) => metric.device_type}
      getOptionLabel={(metric) => metric.metric_name}
      getOptionKey={(metric) => `${metric.device_type}/${metric.metric_key}`}
      isOptionEqualToValue={(option, current) =>
        option.metric_key === current.metric_key && option.device_type === current.device_type
      }
      noOptionsText={METRICS_MESSAGES.noMetricsFound}
      onChange={(_event, metric) => onChange(metric)}
      sx={{ minWidth: 240 }}
      renderInput={(params) => (
        <TextField
          {...params}
          label="Metric"
          error={Boolean(error)}
          helperText={error}
          inputProps={{ ...params.inputProps, 'data-testid': testId }}
        />
      )}
    />
  );
}
