import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import Alert from '@mui/material/Alert';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { textFieldProps } from '@/components/form/text-field-props';
import { SubmitButton } from '@/components/ui/submit-button';
import {
  participantLoginFormSchema,
  type ParticipantLoginFormInput,
} from '../api/participant-login';

type ParticipantLoginFormProps = {
  onSubmit: (input: ParticipantLoginFormInput) => Promise<void> | void;
  error: string | null;
  submitting: boolean;
};

export function ParticipantLoginForm({ onSubmit, error, submitting }: ParticipantLoginFormProps) {
  const {
    register,
    handleSubmit,
    formState: { errors },
  } = useForm<ParticipantLoginFormInput>({
    resolver: zodResolver(participantLoginFormSchema),
    defaultValues: { username: '', password: '' },
  });

  return (
    <Stack
      component="form"
      noValidate
      spacing={2.5}
      aria-label="Participant log in"
      data-testid="participant-login-form"
      onSubmit={handleSubmit(onSubmit)}
    >
      {error && (
        <Alert severity="error" data-testid="participant-login-error">
          {error}
        </Alert>
      )}
      <TextField
        id="participant-login-username"
        label="Username"
        autoComplete="username"
        {...textFieldProps(register('username'), errors.username)}
      />
      <TextField
        id="participant-login-password"
        label="Password"
        type="password"
        autoComplete="current-password"
        {...textFieldProps(register('password'), errors.password)}
      />
      <SubmitButton submitting={submitting} testId="participant-login-submit">
        Log In
      </SubmitButton>
    </Stack>
  );
}
