import { useMemo, useState } from 'react';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import Chip from '@mui/material/Chip';
import DialogContentText from '@mui/material/DialogContentText';
import IconButton from '@mui/material/IconButton';
import Menu from '@mui/material/Menu';
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
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import AddIcon from '@mui/icons-material/Add';
import CloseIcon from '@mui/icons-material/Close';
import DeleteOutline from '@mui/icons-material/DeleteOutline';
import EditOutlined from '@mui/icons-material/EditOutlined';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';
import {
  LIMITS,
  METRICS_MESSAGES,
  deviceMetricSettingInputSchema,
  type AvailableMetric,
  type DeviceMetricSetting,
  type DeviceSettingsPut,
} from '@trialpulse/shared';
import { MetricPicker } from './metric-picker';
import { UnsavedStatusBar } from './unsaved-status-bar';

/** A row being edited or added; `isNew` is the spec's client-only flag. */
type Draft = {
  metric_key: string;
  metric_name: string;
  metric_units: string;
  is_enabled: boolean;
  retention_days: string;
  isNew: boolean;
};
type DraftErrors = Partial<Record<'metric_name' | 'retention_days', string>>;
type Payload = DeviceSettingsPut['settings'][number];

/** What a bulk action or a save asks the page to do; the page maps failures to §8 texts. */
export type SettingsChange =
  | { kind: 'save' }
  | { kind: 'status'; action: 'enable' | 'disable' }
  | { kind: 'delete-one' }
  | { kind: 'delete-many' };

type Props = {
  settings: DeviceMetricSetting[];
  metrics: AvailableMetric[];
  saving: boolean;
  onSave: (settings: Payload[], change: SettingsChange) => Promise<boolean>;
  onBanner: (message: string | null) => void;
};

const keyOf = (setting: DeviceMetricSetting) => `id:${setting.id}`;
const payloadOf = (setting: DeviceMetricSetting): Payload => ({
  metric_key: setting.metric_key,
  metric_name: setting.metric_name,
  metric_units: setting.metric_units,
  is_enabled: setting.is_enabled,
  retention_days: setting.retention_days,
});
const draftOf = (setting: DeviceMetricSetting): Draft => ({
  metric_key: setting.metric_key,
  metric_name: setting.metric_name,
  metric_units: setting.metric_units ?? '',
  is_enabled: setting.is_enabled,
  retention_days: String(setting.retention_days),
  isNew: false,
});
const draftPayload = (draft: Draft): Payload => ({
  metric_key: draft.metric_key,
  metric_name: draft.metric_name,
  metric_units: draft.metric_units.trim() === '' ? null : draft.metric_units.trim(),
  is_enabled: draft.is_enabled,
  retention_days: draft.retention_days.trim() === '' ? Number.NaN : Number(draft.retention_days),
});

/** The shared row schema's messages for one draft (the server checks the same). */
function validate(draft: Draft): DraftErrors {
  const parsed = deviceMetricSettingInputSchema.safeParse(draftPayload(draft));
  if (parsed.success) return {};
  const errors: DraftErrors = {};
  for (const issue of parsed.error.issues) {
    const field = issue.path[0] === 'metric_key' ? 'metric_name' : issue.path[0];
    if ((field === 'metric_name' || field === 'retention_days') && !errors[field])
      errors[field] = issue.message;
  }
  return errors;
}

/**
 * 'Device Settings' mode: the stored settings with inline edit, new rows (NEW), per-row
 * delete and bulk enable/disable/delete. Every change sends the whole list (§4).
 */
export function DeviceSettingsTable({ settings, metrics, saving, onSave, onBanner }: Props) {
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [errors, setErrors] = useState<Record<string, DraftErrors>>({});
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [statusMenu, setStatusMenu] = useState<HTMLElement | null>(null);
  const [confirm, setConfirm] = useState<{ kind: 'one'; key: string } | { kind: 'many' } | null>(
    null,
  );
  const [newCount, setNewCount] = useState(0);

  const newKeys = Object.keys(drafts).filter((key) => drafts[key]!.isNew);
  const editedKeys = Object.keys(drafts).filter((key) => !drafts[key]!.isNew);
  const unsaved = newKeys.length + editedKeys.length > 0;

  const usedKeysExcept = (rowKey: string) =>
    new Set(
      [
        ...settings
          .filter((setting) => keyOf(setting) !== rowKey)
          .map((setting) => drafts[keyOf(setting)]?.metric_key ?? setting.metric_key),
        ...newKeys.filter((key) => key !== rowKey).map((key) => drafts[key]!.metric_key),
      ].filter(Boolean),
    );

  const updateDraft = (rowKey: string, patch: Partial<Draft>, field?: keyof DraftErrors) => {
    setDrafts((current) => ({ ...current, [rowKey]: { ...current[rowKey]!, ...patch } }));
    // An error clears when its field is edited (§5).
    if (field)
      setErrors((current) => ({
        ...current,
        [rowKey]: { ...current[rowKey], [field]: undefined },
      }));
  };
  const stopEditing = (rowKey: string) => {
    setDrafts(({ [rowKey]: _dropped, ...rest }) => rest);
    setErrors(({ [rowKey]: _dropped, ...rest }) => rest);
  };
  const cancelAll = () => {
    setDrafts({});
    setErrors({});
    onBanner(null);
  };
  const addRow = () => {
    const key = `new:${newCount + 1}`;
    setNewCount((count) => count + 1);
    setDrafts((current) => ({
      ...current,
      [key]: {
        metric_key: '',
        metric_name: '',
        metric_units: '',
        is_enabled: true,
        retention_days: String(LIMITS.defaultRetentionDays),
        isNew: true,
      },
    }));
  };

  const fullList = (override: (setting: DeviceMetricSetting) => Payload | null): Payload[] =>
    settings.map(override).filter((row): row is Payload => row !== null);

  const save = async () => {
    const found: Record<string, DraftErrors> = {};
    for (const [key, draft] of Object.entries(drafts)) {
      const rowErrors = validate(draft);
      if (Object.keys(rowErrors).length > 0) found[key] = rowErrors;
    }
    setErrors(found);
    if (Object.keys(found).length > 0) {
      onBanner(METRICS_MESSAGES.fixValidation);
      return;
    }
    const list = [
      ...fullList((setting) =>
        drafts[keyOf(setting)] ? draftPayload(drafts[keyOf(setting)]!) : payloadOf(setting),
      ),
      ...newKeys.map((key) => draftPayload(drafts[key]!)),
    ];
    if (await onSave(list, { kind: 'save' })) {
      setDrafts({});
      setErrors({});
    }
  };

  const setStatus = async (action: 'enable' | 'disable') => {
    setStatusMenu(null);
    if (selected.size === 0) return onBanner(METRICS_MESSAGES.selectToModify);
    const list = fullList((setting) => ({
      ...payloadOf(setting),
      is_enabled: selected.has(keyOf(setting)) ? action === 'enable' : setting.is_enabled,
    }));
    if (await onSave(list, { kind: 'status', action })) setSelected(new Set());
  };

  const deleteRows = async (keys: Set<string>, kind: 'delete-one' | 'delete-many') => {
    setConfirm(null);
    if (keys.size === 0) return onBanner(METRICS_MESSAGES.selectToDelete);
    const list = fullList((setting) => (keys.has(keyOf(setting)) ? null : payloadOf(setting)));
    if (await onSave(list, { kind })) setSelected(new Set());
  };

  const rows = useMemo(
    () => [
      ...settings.map((setting) => ({ key: keyOf(setting), setting })),
      ...newKeys.map((key) => ({ key, setting: null })),
    ],
    [settings, newKeys],
  );
  const selectable = settings.map(keyOf);
  const allSelected = selectable.length > 0 && selectable.every((key) => selected.has(key));
  const someSelected = selectable.some((key) => selected.has(key));

  return (
    <Stack spacing={2} data-testid="device-settings">
      <UnsavedStatusBar
        counts={[
          { label: 'edited', value: editedKeys.length },
          { label: 'new', value: newKeys.length },
        ]}
        saving={saving}
        onSave={() => void save()}
        onCancel={cancelAll}
      />
      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
        <Typography variant="h2" component="h2" sx={{ fontSize: '1.25rem', flexGrow: 1 }}>
          Device Settings
        </Typography>
        {!unsaved && selected.size > 0 && (
          <>
            <Button
              variant="outlined"
              onClick={(event) => setStatusMenu(event.currentTarget)}
              data-testid="bulk-set-status"
            >
              Set Status...
            </Button>
            <Menu
              anchorEl={statusMenu}
              open={Boolean(statusMenu)}
              onClose={() => setStatusMenu(null)}
            >
              <MenuItem onClick={() => void setStatus('enable')} data-testid="bulk-enable">
                Enable Selected
              </MenuItem>
              <MenuItem onClick={() => void setStatus('disable')} data-testid="bulk-disable">
                Disable Selected
              </MenuItem>
            </Menu>
            <Button
              color="error"
              variant="outlined"
              onClick={() => setConfirm({ kind: 'many' })}
              data-testid="bulk-delete"
            >
              Delete Selected
            </Button>
          </>
        )}
        <Button startIcon={<AddIcon />} onClick={addRow} data-testid="add-metric-row">
          Add Metric
        </Button>
      </Stack>
      <TableContainer component={Paper} variant="outlined">
        <Table size="small" aria-label="Device Settings">
          <TableHead>
            <TableRow>
              <TableCell padding="checkbox">
                <Checkbox
                  checked={allSelected}
                  indeterminate={someSelected && !allSelected}
                  disabled={selectable.length === 0}
                  onChange={() => setSelected(allSelected ? new Set() : new Set(selectable))}
                  slotProps={{ input: { 'aria-label': 'Select all settings' } }}
                />
              </TableCell>
              <TableCell>Metric Name</TableCell>
              <TableCell>Units</TableCell>
              <TableCell>Enabled</TableCell>
              <TableCell>Retention Days</TableCell>
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {rows.length === 0 && (
              <TableRow>
                <TableCell colSpan={6} data-testid="no-settings">
                  {METRICS_MESSAGES.noMetricsForDevice}
                </TableCell>
              </TableRow>
            )}
            {rows.map(({ key, setting }) => {
              const draft = drafts[key];
              const rowErrors = errors[key] ?? {};
              const testKey = setting ? setting.metric_key : key.replace(':', '-');
              return (
                <TableRow key={key} data-testid={`setting-row-${testKey}`}>
                  <TableCell padding="checkbox">
                    {setting && (
                      <Checkbox
                        checked={selected.has(key)}
                        onChange={() =>
                          setSelected((current) => {
                            const next = new Set(current);
                            if (next.has(key)) next.delete(key);
                            else next.add(key);
                            return next;
                          })
                        }
                        slotProps={{ input: { 'aria-label': `Select ${setting.metric_name}` } }}
                        data-testid={`setting-check-${testKey}`}
                      />
                    )}
                  </TableCell>
                  {draft ? (
                    <>
                      <TableCell>
                        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                          <MetricPicker
                            metrics={metrics}
                            usedKeys={usedKeysExcept(key)}
                            value={draft}
                            error={rowErrors.metric_name}
                            testId={`metric-picker-${testKey}`}
                            onChange={(metric) =>
                              updateDraft(
                                key,
                                metric
                                  ? {
                                      metric_key: metric.metric_key,
                                      metric_name: metric.metric_name,
                                      metric_units: metric.units ?? '',
                                      retention_days: draft.isNew
                                        ? String(metric.default_retention_days)
                                        : draft.retention_days,
                                    }
                                  : { metric_key: '', metric_name: '' },
                                'metric_name',
                              )
                            }
                          />
                          {draft.isNew && (
                            <Chip size="small" color="info" label="NEW" data-testid="new-marker" />
                          )}
                        </Stack>
                      </TableCell>
                      <TableCell>
                        <TextField
                          size="small"
                          label="Units"
                          value={draft.metric_units}
                          onChange={(event) =>
                            updateDraft(key, { metric_units: event.target.value })
                          }
                          sx={{ width: 120 }}
                        />
                      </TableCell>
                      <TableCell>
                        <TextField
                          select
                          size="small"
                          label="Enabled"
                          value={draft.is_enabled ? 'yes' : 'no'}
                          onChange={(event) =>
                            updateDraft(key, { is_enabled: event.target.value === 'yes' })
                          }
                          sx={{ width: 100 }}
                          slotProps={{
                            select: {
                              SelectDisplayProps: {
                                'data-testid': `enabled-select-${testKey}`,
                              } as object,
                            },
                          }}
                        >
                          <MenuItem value="yes">Yes</MenuItem>
                          <MenuItem value="no">No</MenuItem>
                        </TextField>
                      </TableCell>
                      <TableCell>
                        <TextField
                          size="small"
                          type="number"
                          label="Retention Days"
                          value={draft.retention_days}
                          error={Boolean(rowErrors.retention_days)}
                          helperText={rowErrors.retention_days}
                          onChange={(event) =>
                            updateDraft(
                              key,
                              { retention_days: event.target.value },
                              'retention_days',
                            )
                          }
                          slotProps={{
                            htmlInput: {
                              min: LIMITS.minRetentionDays,
                              'data-testid': `retention-input-${testKey}`,
                            },
                          }}
                          sx={{ width: 150 }}
                        />
                      </TableCell>
                      <TableCell align="right">
                        <Tooltip title="Cancel">
                          <IconButton
                            aria-label="Cancel edit"
                            onClick={() => stopEditing(key)}
                            data-testid={`cancel-row-${testKey}`}
                          >
                            <CloseIcon fontSize="small" />
                          </IconButton>
                        </Tooltip>
                      </TableCell>
                    </>
                  ) : (
                    setting && (
                      <>
                        <TableCell>{setting.metric_name}</TableCell>
                        <TableCell>{setting.metric_units ?? ''}</TableCell>
                        <TableCell data-testid={`setting-enabled-${testKey}`}>
                          {setting.is_enabled ? 'Yes' : 'No'}
                        </TableCell>
                        <TableCell>{setting.retention_days}</TableCell>
                        <TableCell align="right">
                          <Tooltip title="Edit">
                            <IconButton
                              aria-label={`Edit ${setting.metric_name}`}
                              onClick={() =>
                                setDrafts((current) => ({ ...current, [key]: draftOf(setting) }))
                              }
                              data-testid={`edit-row-${testKey}`}
                            >
                              <EditOutlined fontSize="small" />
                            </IconButton>
                          </Tooltip>
                          <Tooltip title="Delete">
                            <IconButton
                              aria-label={`Delete ${setting.metric_name}`}
                              onClick={() => setConfirm({ kind: 'one', key })}
                              disabled={unsaved}
                              data-testid={`delete-row-${testKey}`}
                            >
                              <DeleteOutline fontSize="small" />
                            </IconButton>
                          </Tooltip>
                        </TableCell>
                      </>
                    )
                  )}
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>
      {confirm !== null && (
        <ConfirmDialog
          title={
            confirm.kind === 'many'
              ? METRICS_MESSAGES.deleteSettingsTitle
              : METRICS_MESSAGES.deleteSettingTitle
          }
          confirmLabel="Delete"
          onConfirm={() =>
            confirm.kind === 'many'
              ? void deleteRows(new Set(selected), 'delete-many')
              : void deleteRows(new Set([confirm.key]), 'delete-one')
          }
          onClose={() => setConfirm(null)}
          pending={false}
          testId="delete-setting"
          confirmTestId="confirm-delete"
        >
          <DialogContentText>
            {confirm.kind === 'many'
              ? `Delete the ${selected.size} selected metric settings? Teams can no longer store these metrics for this device.`
              : `Delete the metric setting "${settings.find((setting) => keyOf(setting) === confirm.key)?.metric_name ?? ''}"? Teams can no longer store this metric for this device.`}
          </DialogContentText>
        </ConfirmDialog>
      )}
    </Stack>
  );
}
