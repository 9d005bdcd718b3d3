import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import { loginInputSchema, type LoginInput } from '@trialpulse/shared';
import { OutlinedTextField } from '@/components/form/outlined-text-field';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';

/** What the form collects; the human-check answer is added by the page when it submits. */
export const loginFormSchema = loginInputSchema.omit({ recaptchaResponse: true });
export type LoginFormInput = Omit<LoginInput, 'recaptchaResponse'>;

type LoginFormProps = {
  onSubmit: (input: LoginFormInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
  /** Ids and test ids start with it: `login` (staff) or `participant-login` (participant portal). */
  idPrefix: string;
  /** The form's accessible name. */
  label: string;
  autoFocus?: boolean;
};

/** Username and password, the same for staff and participant sign-in (both use the shared schema). */
export function LoginForm({
  onSubmit,
  error,
  submitting,
  idPrefix,
  label,
  autoFocus = false,
}: LoginFormProps) {
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
      aria-label={label}
      data-testid={`${idPrefix}-form`}
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid={`${idPrefix}-error`}>
          {error}
        </Alert>
      )}
      <OutlinedTextField
        id={`${idPrefix}-username`}
        label="Username"
        autoComplete="username"
        autoFocus={autoFocus}
        slotProps={{ htmlInput: { 'data-testid': `${idPrefix}-username` } }}
        {...textFieldProps(register('username'), errors.username)}
      />
      <OutlinedTextField
        id={`${idPrefix}-password`}
        label="Password"
        type="password"
        autoComplete="current-password"
        slotProps={{ htmlInput: { 'data-testid': `${idPrefix}-password` } }}
        {...textFieldProps(register('password'), errors.password)}
      />
      <SubmitButton submitting={submitting} testId={`${idPrefix}-submit`}>
        Log In
      </SubmitButton>
    </Stack>
  );
}
