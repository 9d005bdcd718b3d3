import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import { SIGNUP_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useParticipantSignup, type ParticipantSignupInput } from '../api/participant-signup';
import { ParticipantSignupForm } from '../components/participant-signup-form';
import { PARTICIPANT_LOGIN_PATH } from '../components/paths';

export const PARTICIPANT_SIGNUP_SUCCESS = 'Your account has been created. You can now log in.';

/** /ParticipantSignupPage and /Participants: a study participant creates an account. */
export function ParticipantSignupPage() {
  const signup = useParticipantSignup();
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState<string | null>(null);

  const handleSubmit = async (input: ParticipantSignupInput) => {
    setError(null);
    try {
      const answer = await signup.mutateAsync(input);
      if (answer?.success === false) {
        setError(answer.message || SIGNUP_MESSAGES.unsuccessful);
        return;
      }
      setSuccess(answer?.message || PARTICIPANT_SIGNUP_SUCCESS);
    } catch (failure) {
      setError(userMessage(failure, SIGNUP_MESSAGES.failed));
    }
  };

  return (
    <FormCard
      title="Participant registration"
      subtitle="Create your account to take part in a study. Please do not enter personal health information."
      testId="participant-signup-page"
    >
      {success ? (
        <Alert severity="success" data-testid="participant-signup-success">
          {success}
        </Alert>
      ) : (
        <ParticipantSignupForm
          onSubmit={handleSubmit}
          error={error}
          submitting={signup.isPending}
        />
      )}
      <Link
        component={RouterLink}
        to={PARTICIPANT_LOGIN_PATH}
        variant="body2"
        data-testid="participant-signup-login"
        sx={{ alignSelf: 'flex-start' }}
      >
        Already registered? Log in
      </Link>
    </FormCard>
  );
}
