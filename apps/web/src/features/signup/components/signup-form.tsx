import { useForm, type UseFormRegisterReturn } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import type { SignupInput } from '@trialpulse/shared';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import { signupFormSchema, type SignupFormValues } from '../api/signup';

type SignupFormProps = {
  token: string;
  email: string;
  onSubmit: (input: SignupInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

/** Staff registration; the invited email is read-only and doubles as the username. */
export function SignupForm({ token, email, onSubmit, error, submitting }: SignupFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<SignupFormValues, unknown, SignupInput>({
    resolver: zodResolver(signupFormSchema),
    defaultValues: {
      token,
      email,
      username: email,
      firstName: '',
      lastName: '',
      organization: '',
      password: '',
      confirmPassword: '',
      recaptchaResponse: '',
    },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Sign up"
      data-testid="signup-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="signup-error">
          {error}
        </Alert>
      )}
      <TextField
        id="signup-email"
        label="Email"
        type="email"
        autoComplete="username"
        {...textFieldProps(register('email'), errors.email)}
        helperText={errors.email?.message ?? 'Your email address is your username.'}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <TextField
          id="signup-first-name"
          label="First Name"
          autoComplete="given-name"
          fullWidth
          {...textFieldProps(register('firstName'), errors.firstName)}
        />
        <TextField
          id="signup-last-name"
          label="Last Name"
          autoComplete="family-name"
          fullWidth
          {...textFieldProps(register('lastName'), errors.lastName)}
        />
      </Stack>
      <TextField
        id="signup-organization"
        label="Organization"
        autoComplete="organization"
        {...textFieldProps(register('organization'), errors.organization)}
      />
      <TextField
        id="signup-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('password'), errors.password)}
      />
      <TextField
        id="signup-confirm-password"
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('confirmPassword'), errors.confirmPassword)}
      />
      <ConsentCheckbox
        label="I accept the Terms and Conditions"
        error={errors.acceptTerms?.message}
        testId="signup-accept-terms"
        {...register('acceptTerms')}
      />
      <ConsentCheckbox
        label="I accept the Privacy Policy"
        error={errors.acceptPrivacy?.message}
        testId="signup-accept-privacy"
        {...register('acceptPrivacy')}
      />
      <SubmitButton submitting={submitting} testId="signup-submit">
        Sign Up
      </SubmitButton>
    </Stack>
  );
}

type ConsentCheckboxProps = UseFormRegisterReturn & {
  label: string;
  error?: string;
  testId: string;
};

function ConsentCheckbox({ label, error, testId, ref, ...field }: ConsentCheckboxProps) {
  return (
    <FormControl error={Boolean(error)}>
      <FormControlLabel
        label={label}
        control={
          <Checkbox
            inputRef={ref}
            {...field}
            slotProps={{ input: { 'data-testid': testId } as Record<string, string> }}
          />
        }
      />
      {error && <FormHelperText sx={{ mt: 0 }}>{error}</FormHelperText>}
    </FormControl>
  );
}
