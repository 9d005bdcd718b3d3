import { useMemo, useState } from 'react';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Radio from '@mui/material/Radio';
import RadioGroup from '@mui/material/RadioGroup';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import {
  EXPORT_MESSAGES,
  EXPORT_PRODUCT_NAME,
  addYears,
  exportRequestMessages,
  localToday,
  safeFileNamePart,
  type ExportExtra,
  type ExportFormat,
  type ExportMode,
  type ExportRequestInput,
} from '@trialpulse/shared';
import { DateRangeShortcuts } from '@/components/form/date-range-shortcuts';
import { useNotify } from '@/components/notifications';
import {
  useCreateExport,
  useExportDevices,
  useExportMetrics,
  useExportParticipants,
  useExportTrials,
} from '../api/export-calls';
import { exportErrorMessage } from '../utils/export-error-message';

const EXTRA_LABELS: Record<ExportExtra, string> = {
  openmhealth: 'Open mHealth JSON',
  fhir: 'FHIR R4 Observations (NDJSON, LOINC)',
  adherence: 'Adherence per participant and day',
};

/**
 * The export request form (device-data spec §2, §3, §5): trial, device, participants
 * (search, select all), date range, metrics, file name, export mode and format (CSV, XLSX,
 * or Parquet: one file per metric whatever the mode, decision 0250). Every §5 rule is
 * checked before sending, with the texts the server also answers with.
 */
export function ExportForm() {
  const notify = useNotify();
  const today = localToday();
  const [trialId, setTrialId] = useState<number | null>(null);
  const [deviceId, setDeviceId] = useState<number | null>(null);
  const [participantIds, setParticipantIds] = useState<number[]>([]);
  const [search, setSearch] = useState('');
  const [startDate, setStartDate] = useState('');
  const [endDate, setEndDate] = useState('');
  const [metrics, setMetrics] = useState<string[]>([]);
  const [fileName, setFileName] = useState('');
  const [exportMode, setExportMode] = useState<ExportMode>('separate-tabs');
  const [format, setFormat] = useState<ExportFormat>('csv');
  const [extras, setExtras] = useState<ExportExtra[]>([]);
  // Every problem of the form at once (issue 28), in the shared schema's order and words.
  const [errors, setErrors] = useState<string[]>([]);

  const trials = useExportTrials();
  const devices = useExportDevices();
  const participants = useExportParticipants(trialId, deviceId);
  const metricList = useExportMetrics(deviceId);
  const create = useCreateExport();

  const shown = useMemo(() => {
    const needle = search.trim().toLowerCase();
    return (participants.data ?? []).filter(
      (p) => !needle || p.participantCode.toLowerCase().includes(needle),
    );
  }, [participants.data, search]);
  const allShownSelected =
    shown.length > 0 && shown.every((p) => participantIds.includes(p.participantId));

  const loadError = trials.isError
    ? EXPORT_MESSAGES.loadFailed('trials')
    : devices.isError
      ? EXPORT_MESSAGES.loadFailed('devices')
      : participants.isError
        ? EXPORT_MESSAGES.loadFailed('participants')
        : metricList.isError
          ? EXPORT_MESSAGES.loadFailed('metrics')
          : null;

  const toggle = <T,>(list: T[], value: T) =>
    list.includes(value) ? list.filter((item) => item !== value) : [...list, value];

  const submit = () => {
    const request: ExportRequestInput = {
      trialId: trialId ?? undefined,
      deviceId: deviceId ?? undefined,
      participantIds,
      startDate: startDate || undefined,
      endDate: endDate || undefined,
      metrics,
      fileName,
      exportMode,
      format,
      extras,
    };
    const messages = exportRequestMessages(request, { today });
    if (messages.length > 0) {
      setErrors([...new Set(messages)]);
      return;
    }
    setErrors([]);
    // mutateAsync: mutate's own callbacks are dropped if the form re-mounts meanwhile, and the
    // confirmation of a queued export would never show.
    void create.mutateAsync(request).then(
      (answer) => notify(answer.message, 'success'),
      (failure: unknown) => setErrors([exportErrorMessage(failure)]),
    );
  };

  return (
    <Paper sx={{ p: 3 }} data-testid="export-form">
      <Stack spacing={2.5}>
        {loadError && (
          <Alert severity="error" data-testid="export-load-error">
            {loadError}
          </Alert>
        )}
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
          <TextField
            select
            label="Trial *"
            value={trialId ?? ''}
            onChange={(event) => {
              setTrialId(Number(event.target.value));
              setParticipantIds([]);
            }}
            sx={{ minWidth: 260 }}
            slotProps={{ htmlInput: { 'data-testid': 'export-trial' } }}
          >
            {(trials.data ?? []).map((trial) => (
              <MenuItem key={trial.trialId} value={trial.trialId}>
                {trial.trialName} ({trial.trialNumber})
              </MenuItem>
            ))}
          </TextField>
          <TextField
            select
            label="Device *"
            value={deviceId ?? ''}
            onChange={(event) => {
              setDeviceId(Number(event.target.value));
              setParticipantIds([]);
              setMetrics([]);
            }}
            sx={{ minWidth: 260 }}
            slotProps={{ htmlInput: { 'data-testid': 'export-device' } }}
          >
            {(devices.data ?? []).map((device) => (
              <MenuItem key={device.id} value={device.id}>
                {device.friendlyName}
              </MenuItem>
            ))}
          </TextField>
        </Stack>

        <FormControl component="fieldset" data-testid="export-participants">
          <FormLabel component="legend">Participants *</FormLabel>
          {trialId === null || deviceId === null ? (
            <Typography variant="body2" color="text.secondary">
              Choose a trial and a device to list participants.
            </Typography>
          ) : (
            <>
              <Stack direction="row" spacing={2} alignItems="center" sx={{ my: 1 }}>
                <TextField
                  size="small"
                  label="Search participants"
                  value={search}
                  onChange={(event) => setSearch(event.target.value)}
                  slotProps={{ htmlInput: { 'data-testid': 'export-participant-search' } }}
                />
                <FormControlLabel
                  control={
                    <Checkbox
                      checked={allShownSelected}
                      onChange={() =>
                        setParticipantIds((current) =>
                          allShownSelected
                            ? current.filter((id) => !shown.some((p) => p.participantId === id))
                            : [...new Set([...current, ...shown.map((p) => p.participantId)])],
                        )
                      }
                      slotProps={{ input: { 'data-testid': 'export-select-all' } as object }}
                    />
                  }
                  label={`Select all (${participantIds.length} selected)`}
                />
              </Stack>
              <FormGroup row sx={{ maxHeight: 220, overflow: 'auto' }}>
                {shown.map((participant) => (
                  <FormControlLabel
                    key={participant.participantId}
                    control={
                      <Checkbox
                        checked={participantIds.includes(participant.participantId)}
                        onChange={() =>
                          setParticipantIds((current) => toggle(current, participant.participantId))
                        }
                        slotProps={{
                          input: {
                            'data-testid': `export-participant-${participant.participantCode}`,
                          } as object,
                        }}
                      />
                    }
                    label={participant.participantCode}
                  />
                ))}
                {participants.isSuccess && shown.length === 0 && (
                  <Typography variant="body2" color="text.secondary">
                    No participants with this device.
                  </Typography>
                )}
              </FormGroup>
            </>
          )}
        </FormControl>

        {/* Sets both dates; the export is still sent with the Export button (decision 0196). */}
        <Box>
          <DateRangeShortcuts
            today={today}
            value={{ start: startDate, end: endDate }}
            onPick={(range) => {
              setStartDate(range.start);
              setEndDate(range.end);
            }}
            testId="export-date-shortcuts"
          />
        </Box>
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2}>
          <TextField
            type="date"
            label="Start date *"
            value={startDate}
            onChange={(event) => setStartDate(event.target.value)}
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: {
                min: addYears(today, -1),
                max: today,
                'data-testid': 'export-start-date',
              },
            }}
          />
          <TextField
            type="date"
            label="End date *"
            value={endDate}
            onChange={(event) => setEndDate(event.target.value)}
            slotProps={{
              inputLabel: { shrink: true },
              htmlInput: { min: addYears(today, -1), max: today, 'data-testid': 'export-end-date' },
            }}
          />
        </Stack>

        <FormControl component="fieldset" data-testid="export-metrics">
          <FormLabel component="legend">Metrics *</FormLabel>
          {deviceId === null ? (
            <Typography variant="body2" color="text.secondary">
              Choose a device to list its metrics.
            </Typography>
          ) : (
            <FormGroup row>
              {(metricList.data ?? []).map((metric) => (
                <FormControlLabel
                  key={metric.metric_key}
                  // Not stored for the team: shown, with why, but not offered (issue 28).
                  disabled={metric.stored === false}
                  control={
                    <Checkbox
                      checked={metrics.includes(metric.metric_key)}
                      onChange={() => setMetrics((current) => toggle(current, metric.metric_key))}
                      slotProps={{
                        input: { 'data-testid': `export-metric-${metric.metric_key}` } as object,
                      }}
                    />
                  }
                  label={
                    <>
                      {metric.units
                        ? `${metric.metric_name} (${metric.units})`
                        : metric.metric_name}
                      {metric.stored === false && (
                        <Typography
                          variant="caption"
                          color="text.secondary"
                          sx={{ display: 'block' }}
                          data-testid={`export-metric-reason-${metric.metric_key}`}
                        >
                          {EXPORT_MESSAGES.metricNotStored}
                        </Typography>
                      )}
                    </>
                  }
                />
              ))}
            </FormGroup>
          )}
        </FormControl>

        <TextField
          label="File name *"
          value={fileName}
          onChange={(event) => setFileName(event.target.value)}
          helperText={
            fileName.trim() ? `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(fileName)}-Data.zip` : ' '
          }
          slotProps={{ htmlInput: { maxLength: 100, 'data-testid': 'export-file-name' } }}
          sx={{ maxWidth: 420 }}
        />

        <Stack direction={{ xs: 'column', md: 'row' }} spacing={4}>
          <FormControl disabled={format === 'parquet'}>
            <FormLabel id="export-mode-label">Export mode</FormLabel>
            <RadioGroup
              row
              aria-labelledby="export-mode-label"
              value={exportMode}
              onChange={(event) => setExportMode(event.target.value as ExportMode)}
            >
              <FormControlLabel
                value="separate-tabs"
                control={<Radio />}
                label="Separate tabs (one per participant and metric)"
              />
              <FormControlLabel
                value="single-tab"
                control={<Radio />}
                label="Single tab (one long table)"
              />
            </RadioGroup>
          </FormControl>
          <FormControl>
            <FormLabel id="export-format-label">Format</FormLabel>
            <RadioGroup
              row
              aria-labelledby="export-format-label"
              value={format}
              onChange={(event) => setFormat(event.target.value as ExportFormat)}
            >
              <FormControlLabel value="csv" control={<Radio />} label="CSV" />
              <FormControlLabel value="xlsx" control={<Radio />} label="XLSX" />
              <FormControlLabel value="parquet" control={<Radio />} label="Parquet" />
            </RadioGroup>
            {format === 'parquet' && (
              <Typography
                variant="caption"
                color="text.secondary"
                data-testid="export-parquet-note"
                sx={{ maxWidth: 360 }}
              >
                One file per metric with every participant, typed and zstd-compressed, for R
                (arrow::read_parquet) and Python (pandas.read_parquet). The export mode does not
                apply.
              </Typography>
            )}
          </FormControl>
        </Stack>

        <FormControl component="fieldset">
          <FormLabel component="legend">Also include (optional)</FormLabel>
          <FormGroup row>
            {(Object.keys(EXTRA_LABELS) as ExportExtra[]).map((extra) => (
              <FormControlLabel
                key={extra}
                control={
                  <Checkbox
                    checked={extras.includes(extra)}
                    onChange={() => setExtras((current) => toggle(current, extra))}
                  />
                }
                label={EXTRA_LABELS[extra]}
              />
            ))}
          </FormGroup>
          <Typography variant="caption" color="text.secondary">
            Every export also contains a data dictionary and a manifest with checksums.
          </Typography>
        </FormControl>

        {errors.length === 1 && (
          <Alert severity="error" data-testid="export-error">
            <span data-testid="export-error-message">{errors[0]}</span>
          </Alert>
        )}
        {errors.length > 1 && (
          <Alert severity="error" data-testid="export-error">
            <Box component="ul" sx={{ m: 0, pl: 2 }}>
              {errors.map((message) => (
                <li key={message} data-testid="export-error-message">
                  {message}
                </li>
              ))}
            </Box>
          </Alert>
        )}
        <Box>
          <Button
            variant="contained"
            onClick={submit}
            disabled={create.isPending}
            data-testid="export-submit"
          >
            Export
          </Button>
        </Box>
      </Stack>
    </Paper>
  );
}
