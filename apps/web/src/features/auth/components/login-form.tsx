import { useForm, type UseFormRegisterReturn } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { loginInputSchema, type LoginInput } from '../api/login';

type LoginFormProps = {
  onSubmit: (input: LoginInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function LoginForm({ onSubmit, error, submitting }: LoginFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<LoginInput>({
    resolver: zodResolver(loginInputSchema),
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
        error={Boolean(errors.username)}
        helperText={errors.username?.message}
        slotProps={{ htmlInput: { 'data-testid': 'login-username' } }}
        {...withInputRef(register('username'))}
      />
      <TextField
        id="login-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        error={Boolean(errors.password)}
        helperText={errors.password?.message}
        slotProps={{ htmlInput: { 'data-testid': 'login-password' } }}
        {...withInputRef(register('password'))}
      />
      <Button
        type="submit"
        variant="contained"
        size="large"
        disabled={submitting}
        data-testid="login-submit"
        startIcon={submitting ? <CircularProgress size={18} color="inherit" /> : undefined}
      >
        Log In
      </Button>
    </Stack>
  );
}

/** MUI puts `ref` on the wrapper; react-hook-form needs the input itself. */
function withInputRef<T extends string>({ ref, ...field }: UseFormRegisterReturn<T>) {
  return { ...field, inputRef: ref };
}
