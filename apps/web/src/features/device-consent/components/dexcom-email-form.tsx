import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { dexcomEmailInputSchema, type DexcomEmailInput } from '../api/complete-dexcom-callback';

type DexcomEmailFormProps = {
  onSubmit: (input: DexcomEmailInput) => Promise<void> | void;
  onCancel: () => void;
  error: string | null;
  submitting: boolean;
};

/** The participant's email, which the server checks against the participant's record. */
export function DexcomEmailForm({ onSubmit, onCancel, error, submitting }: DexcomEmailFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<DexcomEmailInput>({
    resolver: zodResolver(dexcomEmailInputSchema),
    defaultValues: { email: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Link the Dexcom account"
      data-testid="dexcom-email-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="authorization-error">
          {error}
        </Alert>
      )}
      <TextField
        id="dexcom-participant-email"
        label="Participant email"
        type="email"
        autoComplete="off"
        autoFocus
        {...textFieldProps(register('email'), errors.email)}
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <SubmitButton submitting={submitting}>Continue</SubmitButton>
        <Button variant="outlined" size="large" onClick={onCancel} disabled={submitting}>
          Cancel
        </Button>
      </Stack>
    </Stack>
  );
}
