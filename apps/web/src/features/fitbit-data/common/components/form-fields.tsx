import TextField from '@mui/material/TextField';
import type { SxProps, Theme } from '@mui/material/styles';

/**
 * The small fields of the Fitbit forms (data form, comparison, one day): a native select
 * with a "Select a …" first option, and a date that cannot be later than `max`.
 */
export function SelectField<V extends string>(props: {
  label: string;
  value: V | '';
  onChange: (value: V | '') => void;
  /** The empty first option ("Select a resource"). */
  placeholder: string;
  options: readonly { value: V; label: string }[];
  testId: string;
  sx?: SxProps<Theme>;
}) {
  return (
    <TextField
      select
      label={props.label}
      value={props.value}
      onChange={(event) => props.onChange(event.target.value as V | '')}
      slotProps={{
        select: { native: true },
        inputLabel: { shrink: true },
        htmlInput: { 'data-testid': props.testId },
      }}
      size="small"
      sx={props.sx}
    >
      <option value="">{props.placeholder}</option>
      {props.options.map((option) => (
        <option key={option.value} value={option.value}>
          {option.label}
        </option>
      ))}
    </TextField>
  );
}

export function DateField(props: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  max: string;
  testId: string;
}) {
  return (
    <TextField
      type="date"
      label={props.label}
      value={props.value}
      onChange={(event) => props.onChange(event.target.value)}
      slotProps={{
        inputLabel: { shrink: true },
        htmlInput: { max: props.max, 'data-testid': props.testId },
      }}
      size="small"
    />
  );
}
