import type { ReactNode } from 'react';
import type { UseFormRegisterReturn } from 'react-hook-form';
import InputAdornment from '@mui/material/InputAdornment';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { CODE_SUFFIX_MESSAGE, CODE_SUFFIX_PATTERN, GENDERS, LIMITS } from '@trialpulse/shared';
import type { textFieldProps } from '@/components/form/text-field-props';

type FieldProps = ReturnType<typeof textFieldProps>;

/** Shown in a field the team hides (access spec §5: "the email field … shows a placeholder"). */
export const HIDDEN_FIELD_PLACEHOLDER = 'Hidden for this team';

const GENDER_LABELS: Record<(typeof GENDERS)[number], string> = {
  female: 'Female',
  male: 'Male',
  other: 'Other',
  none: 'None',
};

type ParticipantFieldsProps = {
  /** Prefix of the element ids, so two forms never share one. */
  idPrefix: string;
  /** The trial's code prefix; the code reads `<prefix>-<suffix>`. */
  codePrefix: ReactNode;
  suffix: FieldProps;
  /** The suffix as typed breaks the rule (shown live; the form blocks submitting). */
  suffixInvalid: boolean;
  email: FieldProps;
  gender: FieldProps;
  age: FieldProps;
  notes: FieldProps;
  notesLength: number;
  showEmail: boolean;
  showNotes: boolean;
};

/**
 * The participant fields shared by /AddParticipantPage and the Edit Participant dialog
 * (access spec §3, §5): code suffix after the trial prefix, email, gender, age, notes.
 */
export function ParticipantFields(props: ParticipantFieldsProps) {
  const { idPrefix, suffix, email, gender, age, notes } = props;
  return (
    <Stack spacing={2}>
      <TextField
        id={`${idPrefix}-code-suffix`}
        label="Code Suffix"
        autoComplete="off"
        {...suffix}
        error={props.suffixInvalid || suffix.error}
        helperText={CODE_SUFFIX_MESSAGE}
        slotProps={{
          input: {
            startAdornment: (
              <InputAdornment position="start">
                <span data-testid="participant-code-prefix">{props.codePrefix}-</span>
              </InputAdornment>
            ),
          },
        }}
      />
      <TextField
        id={`${idPrefix}-email`}
        label="Email"
        autoComplete="off"
        {...email}
        {...(props.showEmail
          ? {}
          : {
              placeholder: HIDDEN_FIELD_PLACEHOLDER,
              slotProps: { inputLabel: { shrink: true } },
            })}
      />
      <TextField
        id={`${idPrefix}-gender`}
        label="Gender"
        select
        {...gender}
        slotProps={{ select: { native: true }, inputLabel: { shrink: true } }}
      >
        <option value="">Select gender</option>
        {GENDERS.map((value) => (
          <option key={value} value={value}>
            {GENDER_LABELS[value]}
          </option>
        ))}
      </TextField>
      <TextField
        id={`${idPrefix}-age`}
        label="Age"
        autoComplete="off"
        {...age}
        slotProps={{ htmlInput: { inputMode: 'numeric' } }}
      />
      <div>
        <TextField
          id={`${idPrefix}-notes`}
          label="Notes"
          multiline
          minRows={3}
          fullWidth
          {...notes}
          {...(props.showNotes
            ? {}
            : {
                placeholder: HIDDEN_FIELD_PLACEHOLDER,
                slotProps: { inputLabel: { shrink: true } },
              })}
        />
        <Typography
          variant="caption"
          color={props.notesLength > LIMITS.notesMaxLength ? 'error' : 'text.secondary'}
          component="p"
          sx={{ textAlign: 'right', mt: 0.5 }}
          data-testid="participant-notes-counter"
        >
          {props.notesLength}/{LIMITS.notesMaxLength}
        </Typography>
      </div>
    </Stack>
  );
}

/** Whether a typed suffix passes the rule; blank passes only where the server assigns one. */
export function isSuffixAllowed(value: string | null | undefined, { allowBlank = false } = {}) {
  const trimmed = (value ?? '').trim();
  return trimmed === '' ? allowBlank : CODE_SUFFIX_PATTERN.test(trimmed.toUpperCase());
}

/** The suffix field's registration, upper-casing what is typed (access spec §5). */
export function upperCased<T extends string>(
  registration: UseFormRegisterReturn<T>,
): UseFormRegisterReturn<T> {
  return {
    ...registration,
    onChange: (event: { target: unknown; type?: unknown }) => {
      const target = event.target as HTMLInputElement | null;
      if (target && typeof target.value === 'string') target.value = target.value.toUpperCase();
      return registration.onChange(event);
    },
  };
}
