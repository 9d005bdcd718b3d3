import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import {
  participantSignupInputSchema,
  type ParticipantSignupInput,
} from '../api/participant-signup';

type ParticipantSignupFormProps = {
  onSubmit: (input: ParticipantSignupInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function ParticipantSignupForm({ onSubmit, error, submitting }: ParticipantSignupFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ParticipantSignupInput>({
    resolver: zodResolver(participantSignupInputSchema),
    defaultValues: { username: '', email: '', password: '', confirmPassword: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Participant registration"
      data-testid="participant-signup-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="participant-signup-error">
          {error}
        </Alert>
      )}
      <TextField
        id="participant-signup-username"
        label="Username"
        autoComplete="username"
        {...textFieldProps(register('username'), errors.username)}
      />
      <TextField
        id="participant-signup-email"
        label="Email"
        type="email"
        autoComplete="email"
        {...textFieldProps(register('email'), errors.email)}
      />
      <TextField
        id="participant-signup-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('password'), errors.password)}
      />
      <TextField
        id="participant-signup-confirm"
        label="Confirm Password"
        type="password"
        autoComplete="new-password"
        {...textFieldProps(register('confirmPassword'), errors.confirmPassword)}
      />
      <SubmitButton submitting={submitting} testId="participant-signup-submit">
        Sign Up
      </SubmitButton>
    </Stack>
  );
}
