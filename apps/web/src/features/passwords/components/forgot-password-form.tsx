import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { forgotPasswordFormSchema, type ForgotPasswordFormInput } from '../api/forgot-password';

type ForgotPasswordFormProps = {
  onSubmit: (input: ForgotPasswordFormInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function ForgotPasswordForm({ onSubmit, error, submitting }: ForgotPasswordFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ForgotPasswordFormInput>({
    resolver: zodResolver(forgotPasswordFormSchema),
    defaultValues: { email: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Reset password request"
      data-testid="reset-request-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="reset-request-error">
          {error}
        </Alert>
      )}
      <TextField
        id="reset-request-email"
        label="Email"
        type="email"
        autoComplete="email"
        autoFocus
        {...textFieldProps(register('email'), errors.email)}
      />
      <SubmitButton submitting={submitting} testId="reset-request-submit">
        Send Reset Link
      </SubmitButton>
    </Stack>
  );
}
