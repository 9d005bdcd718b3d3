import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { LOGIN_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import { useParticipantLogin, type ParticipantLoginFormInput } from '../api/participant-login';
import { ParticipantLoginForm } from '../components/participant-login-form';
import { PARTICIPANT_SIGNUP_PATH } from '../components/paths';

/**
 * /ParticipantLoginPage. Participants have no staff pages: after logging in they see a
 * short landing text; their consent pages open from the links their study team emails.
 */
export function ParticipantLoginPage() {
  const { getToken } = useHumanCheck();
  const login = useParticipantLogin();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [signedIn, setSignedIn] = useState<string | null>(null);

  const handleSubmit = async (input: ParticipantLoginFormInput) => {
    setError(null);
    setSubmitting(true);
    try {
      const recaptchaResponse = await getToken('participant_login');
      const answer = await login.mutateAsync({ ...input, recaptchaResponse });
      setSignedIn(answer?.message || 'You are logged in.');
    } catch (failure) {
      setError(userMessage(failure, LOGIN_MESSAGES.failed));
    } finally {
      setSubmitting(false);
    }
  };

  if (signedIn) {
    return (
      <FormCard title="Welcome" testId="participant-landing">
        <Alert severity="success" data-testid="participant-login-success">
          {signedIn}
        </Alert>
        <Typography>
          Thank you for taking part. When your study team asks you to connect a device, they will
          email you a link; open it to give your consent. There is nothing else to do here, and you
          may close this page.
        </Typography>
      </FormCard>
    );
  }

  return (
    <FormCard
      title="Participant log in"
      subtitle="For study participants. Research staff log in on the staff login page."
      testId="participant-login-page"
      maxWidth={440}
    >
      <ParticipantLoginForm onSubmit={handleSubmit} error={error} submitting={submitting} />
      <Link
        component={RouterLink}
        to={PARTICIPANT_SIGNUP_PATH}
        variant="body2"
        data-testid="participant-login-signup"
        sx={{ alignSelf: 'flex-start' }}
      >
        New participant? Create an account
      </Link>
    </FormCard>
  );
}
