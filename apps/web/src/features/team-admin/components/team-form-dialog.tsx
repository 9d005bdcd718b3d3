import { useState } from 'react';
import { Controller, useForm, type Control } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormGroup from '@mui/material/FormGroup';
import FormLabel from '@mui/material/FormLabel';
import Grid from '@mui/material/Grid';
import InputLabel from '@mui/material/InputLabel';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import OutlinedInput from '@mui/material/OutlinedInput';
import Select from '@mui/material/Select';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import { BRANDS, HIDEABLE_FIELDS } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { useNotify } from '@/components/notifications';
import { userMessage } from '@/lib/api-client';
import { useCreateTeam } from '../api/create-team';
import type { TeamRecord } from '../api/get-admin-teams';
import { useDeviceCatalog, type DeviceCatalogEntry } from '../api/get-device-catalog';
import { useUpdateTeam } from '../api/update-team';
import {
  NEW_TEAM_VALUES,
  teamFormSchema,
  teamToFormValues,
  type TeamFormValues,
  type TeamInput,
} from './team-form-schema';
import { FormDialog } from '@/components/ui/form-dialog';

/**
 * New Team and Edit Team (Sys_Admin): every field of the team record, hidden fields,
 * allowed brands and supported devices, validated by the shared `teamInputSchema`.
 */
export function TeamFormDialog({ team, onClose }: { team?: TeamRecord; onClose: () => void }) {
  const editing = team !== undefined;
  const notify = useNotify();
  const create = useCreateTeam();
  const update = useUpdateTeam();
  const catalog = useDeviceCatalog();
  const [error, setError] = useState<string | null>(null);
  const submitting = create.isPending || update.isPending;
  const {
    register,
    handleSubmit,
    control,
    formState: { errors },
  } = useForm<TeamFormValues, unknown, TeamInput>({
    resolver: zodResolver(teamFormSchema),
    defaultValues: team ? teamToFormValues(team) : NEW_TEAM_VALUES,
  });

  const submit = async (input: TeamInput) => {
    setError(null);
    try {
      if (editing) {
        const answer = await update.mutateAsync({ teamId: team.team_id, input });
        notify(answer?.message || 'Team updated.', 'success');
      } else {
        await create.mutateAsync(input);
        notify('Team created.', 'success');
      }
      onClose();
    } catch (failure) {
      setError(
        `Error: ${userMessage(failure, editing ? 'Updating the team failed' : 'Adding a new team failed')}`,
      );
    }
  };

  const text = (
    name: TextFieldName,
    label: string,
    extra: { type?: string; multiline?: boolean } = {},
  ) => (
    <TextField
      id={`team-${name}`}
      label={label}
      fullWidth
      type={extra.type}
      multiline={extra.multiline}
      minRows={extra.multiline ? 2 : undefined}
      autoComplete="off"
      slotProps={extra.type === 'date' ? { inputLabel: { shrink: true } } : undefined}
      {...textFieldProps(register(name), errors[name])}
    />
  );

  return (
    <FormDialog
      title={editing ? 'Edit Team' : 'New Team'}
      onSubmit={handleSubmit(submit)}
      onClose={onClose}
      submitting={submitting}
      error={error}
      maxWidth="md"
      testId="team-form"
    >
      <Grid container spacing={2}>
        <Grid size={{ xs: 12, sm: 8 }}>{text('team_name', 'Team Name')}</Grid>
        <Grid size={{ xs: 12, sm: 4 }} sx={{ display: 'flex', alignItems: 'center' }}>
          <Controller
            control={control}
            name="is_active"
            render={({ field }) => (
              <FormControlLabel
                label="Active"
                control={
                  <Switch
                    checked={field.value}
                    onChange={(event) => field.onChange(event.target.checked)}
                    data-testid="team-is-active"
                  />
                }
              />
            )}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>
          {text('subscription_starts', 'Subscription Starts', { type: 'date' })}
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>
          {text('subscription_ends', 'Subscription Ends', { type: 'date' })}
        </Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{text('subscription_type', 'Subscription Type')}</Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{text('max_users', 'Max Users', { type: 'number' })}</Grid>
        <Grid size={{ xs: 12, sm: 4 }}>{text('max_trials', 'Max Trials', { type: 'number' })}</Grid>
        <Grid size={{ xs: 12, sm: 4 }}>
          {text('max_participants', 'Max Participants', { type: 'number' })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {text('team_admin_email', 'Team Admin Email', { type: 'email' })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{text('team_admin_phone', 'Team Admin Phone')}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{text('organization', 'Organization')}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>{text('storage_location', 'Storage Location')}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {text('monthly_rate_per_participant', 'Monthly Rate per Participant', {
            type: 'number',
          })}
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          {text('retention_days', 'Retention Days', { type: 'number' })}
        </Grid>
        <Grid size={12}>{text('notes', 'Notes', { multiline: true })}</Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <CheckboxGroup
            control={control}
            name="hidden_fields"
            legend="Hidden fields"
            options={HIDEABLE_FIELDS.map((field) => ({ value: field, label: `Hide ${field}` }))}
          />
        </Grid>
        <Grid size={{ xs: 12, sm: 6 }}>
          <CheckboxGroup
            control={control}
            name="allowed_brands"
            legend="Allowed brands"
            options={BRANDS.map((brand) => ({ value: brand, label: brand }))}
          />
        </Grid>
        <Grid size={12}>
          <SupportedDevicesSelect control={control} devices={catalog.data ?? []} />
          {catalog.isError && (
            <Alert severity="warning" sx={{ mt: 1 }}>
              The device catalog could not be loaded.
            </Alert>
          )}
        </Grid>
      </Grid>
    </FormDialog>
  );
}

type TextFieldName = Exclude<
  keyof TeamFormValues,
  'is_active' | 'hidden_fields' | 'allowed_brands' | 'supported_device_ids'
>;

function CheckboxGroup<TName extends 'hidden_fields' | 'allowed_brands'>({
  control,
  name,
  legend,
  options,
}: {
  control: Control<TeamFormValues, unknown, TeamInput>;
  name: TName;
  legend: string;
  options: { value: TeamFormValues[TName][number]; label: string }[];
}) {
  return (
    <Controller
      control={control}
      name={name}
      render={({ field }) => {
        const selected = field.value as string[];
        return (
          <FormControl component="fieldset" variant="standard">
            <FormLabel component="legend">{legend}</FormLabel>
            <FormGroup row>
              {options.map((option) => (
                <FormControlLabel
                  key={option.value}
                  label={option.label}
                  control={
                    <Checkbox
                      checked={selected.includes(option.value)}
                      onChange={(event) =>
                        field.onChange(
                          event.target.checked
                            ? [...selected, option.value]
                            : selected.filter((value) => value !== option.value),
                        )
                      }
                    />
                  }
                />
              ))}
            </FormGroup>
          </FormControl>
        );
      }}
    />
  );
}

function SupportedDevicesSelect({
  control,
  devices,
}: {
  control: Control<TeamFormValues, unknown, TeamInput>;
  devices: DeviceCatalogEntry[];
}) {
  const label = (id: number) => {
    const device = devices.find((entry) => entry.id === id);
    return device ? `${device.manufacturer} — ${device.device_name}` : `Device ${id}`;
  };
  return (
    <Controller
      control={control}
      name="supported_device_ids"
      render={({ field }) => (
        <FormControl fullWidth>
          <InputLabel id="team-supported-devices-label">Supported Devices</InputLabel>
          <Select
            labelId="team-supported-devices-label"
            id="team-supported-devices"
            multiple
            value={field.value}
            onChange={(event) => {
              const value = event.target.value;
              field.onChange(typeof value === 'string' ? [] : value);
            }}
            input={<OutlinedInput label="Supported Devices" />}
            renderValue={(ids) => ids.map(label).join(', ')}
          >
            {devices.map((device) => (
              <MenuItem key={device.id} value={device.id}>
                <Checkbox checked={field.value.includes(device.id)} />
                <ListItemText
                  primary={device.device_name}
                  secondary={[device.manufacturer, device.device_type].filter(Boolean).join(' · ')}
                />
              </MenuItem>
            ))}
          </Select>
        </FormControl>
      )}
    />
  );
}
