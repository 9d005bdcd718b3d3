import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { resetPasswordInputSchema, type ResetPasswordInput } from '../api/reset-password';

type ResetPasswordFormProps = {
  token: string;
  onSubmit: (input: ResetPasswordInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function ResetPasswordForm({ token, onSubmit, error, submitting }: ResetPasswordFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ResetPasswordInput>({
    resolver: zodResolver(resetPasswordInputSchema),
    defaultValues: { token, newPassword: '', newConfirmPassword: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Set a new password"
      data-testid="reset-password-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="reset-password-error">
          {error}
        </Alert>
      )}
      <TextField
        id="reset-password-new"
        label="New Password"
        type="password"
        autoComplete="new-password"
        autoFocus
        {...textFieldProps(register('newPassword'), errors.newPassword)}
      />
      <TextField
        id="reset-password-confirm"
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('newConfirmPassword'), errors.newConfirmPassword)}
      />
      <SubmitButton submitting={submitting} testId="reset-password-submit">
        Set New Password
      </SubmitButton>
    </Stack>
  );
}
