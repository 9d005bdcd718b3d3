import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { changePasswordInputSchema, type ChangePasswordInput } from '../api/change-password';

type ChangePasswordFormProps = {
  onSubmit: (input: ChangePasswordInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function ChangePasswordForm({ onSubmit, error, submitting }: ChangePasswordFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ChangePasswordInput>({
    resolver: zodResolver(changePasswordInputSchema),
    defaultValues: { currentPassword: '', newPassword: '', newConfirmPassword: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Change password"
      data-testid="change-password-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="change-password-error">
          {error}
        </Alert>
      )}
      <TextField
        id="change-password-current"
        label="Current Password"
        type="password"
        autoComplete="current-password"
        {...textFieldProps(register('currentPassword'), errors.currentPassword)}
      />
      <TextField
        id="change-password-new"
        label="New Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('newPassword'), errors.newPassword)}
      />
      <TextField
        id="change-password-confirm"
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('newConfirmPassword'), errors.newConfirmPassword)}
      />
      <SubmitButton submitting={submitting} testId="change-password-submit">
        Change Password
      </SubmitButton>
    </Stack>
  );
}
