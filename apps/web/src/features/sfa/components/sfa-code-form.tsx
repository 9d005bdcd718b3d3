import { Controller, useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import Alert from '@mui/material/Alert';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { sfaCodeSchema } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { SFA_TEXT } from '../sfa-constants';

const sfaCodeFormSchema = z.object({ sfaToken: sfaCodeSchema, skipSFA: z.boolean() });
export type SfaCodeFormValues = z.infer<typeof sfaCodeFormSchema>;

type SfaCodeFormProps = {
  /** Accessible name of the form. */
  name: string;
  codeLabel: string;
  submitLabel: string;
  submitTestId: string;
  /** Shows the "Remember this device for 48 hours" checkbox (validation only). */
  withRememberDevice?: boolean;
  submitting: boolean;
  error: string | null;
  onSubmit: (values: SfaCodeFormValues) => Promise<void> | void;
};

/** A six-digit code field (spec §5 messages under it), optional remember-device, submit. */
export function SfaCodeForm({
  name,
  codeLabel,
  submitLabel,
  submitTestId,
  withRememberDevice = false,
  submitting,
  error,
  onSubmit,
}: SfaCodeFormProps) {
  const {
    register,
    control,
    handleSubmit,
    formState: { errors },
  } = useForm<SfaCodeFormValues>({
    resolver: zodResolver(sfaCodeFormSchema),
    defaultValues: { sfaToken: '', skipSFA: false },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2}
      aria-label={name}
      data-testid="sfa-code-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="sfa-error">
          {error}
        </Alert>
      )}
      <TextField
        id="sfa-code"
        label={codeLabel}
        autoComplete="one-time-code"
        autoFocus
        slotProps={{
          htmlInput: {
            inputMode: 'numeric',
            pattern: '[0-9]*',
            'data-testid': 'sfa-code',
            style: { letterSpacing: '0.3em', fontVariantNumeric: 'tabular-nums' },
          },
        }}
        // Authenticator apps show "123 456"; a pasted space is not a wrong code.
        {...textFieldProps(register('sfaToken', { setValueAs: withoutSpaces }), errors.sfaToken)}
      />
      {withRememberDevice && (
        <Controller
          name="skipSFA"
          control={control}
          render={({ field }) => (
            <FormControlLabel
              label={SFA_TEXT.rememberDevice}
              control={
                <Checkbox
                  checked={field.value}
                  onChange={(event) => field.onChange(event.target.checked)}
                  onBlur={field.onBlur}
                  inputRef={field.ref}
                  slotProps={{ input: REMEMBER_INPUT_PROPS }}
                />
              }
            />
          )}
        />
      )}
      <SubmitButton submitting={submitting} testId={submitTestId}>
        {submitLabel}
      </SubmitButton>
    </Stack>
  );
}

/** Test id on the checkbox input itself (MUI's slot type does not list data attributes). */
const REMEMBER_INPUT_PROPS = { 'data-testid': 'sfa-remember' } as object;

function withoutSpaces(value: unknown): unknown {
  return typeof value === 'string' ? value.replace(/\s+/g, '') : value;
}
