import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { loginFormSchema, type LoginFormInput } from '../api/login';

type LoginFormProps = {
  onSubmit: (input: LoginFormInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function LoginForm({ onSubmit, error, submitting }: LoginFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<LoginFormInput>({
    resolver: zodResolver(loginFormSchema),
    defaultValues: { username: '', password: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Log in"
      data-testid="login-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="login-error">
          {error}
        </Alert>
      )}
      <TextField
        id="login-username"
        label="Username"
        autoComplete="username"
        autoFocus
        slotProps={{ htmlInput: { 'data-testid': 'login-username' } }}
        {...textFieldProps(register('username'), errors.username)}
      />
      <TextField
        id="login-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        slotProps={{ htmlInput: { 'data-testid': 'login-password' } }}
        {...textFieldProps(register('password'), errors.password)}
      />
      <SubmitButton submitting={submitting} testId="login-submit">
        Log In
      </SubmitButton>
    </Stack>
  );
}
