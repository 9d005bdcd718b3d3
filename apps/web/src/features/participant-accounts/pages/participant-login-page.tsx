import { useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import { useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { LOGIN_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import { myEnrolmentsQueryKey, useMyEnrolments } from '../api/get-my-enrolments';
import { useParticipantLogin } from '../api/participant-login';
import { LoginForm, type LoginFormInput } from '@/components/form/login-form';
import { ParticipantPortal } from '../components/participant-portal';
import { EmailConfirmationResult, UnconfirmedEmailNotice } from '../components/email-confirmation';
import { PARTICIPANT_SIGNUP_PATH } from '../components/paths';

/**
 * /ParticipantLoginPage. Participants have no staff pages: after logging in — or at once
 * when already signed in as a participant — they land on their portal here: their
 * enrolments and each device brand's connection, to authorise or revoke. Consent links
 * their study team emails open their own pages.
 */
export function ParticipantLoginPage() {
  const { getToken } = useHumanCheck();
  const queryClient = useQueryClient();
  const login = useParticipantLogin();
  // Answers only for a signed-in participant: then the portal shows without a login.
  const enrolments = useMyEnrolments();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [signedIn, setSignedIn] = useState<string | null>(null);
  // The emailed address-confirmation link lands here.
  const verifyToken = useSearchParams()[0].get('verifyEmail');
  const confirmation = verifyToken ? <EmailConfirmationResult token={verifyToken} /> : null;

  const handleSubmit = async (input: LoginFormInput) => {
    setError(null);
    setSubmitting(true);
    try {
      const recaptchaResponse = await getToken('participant_login');
      const answer = await login.mutateAsync({ ...input, recaptchaResponse });
      setSignedIn(answer?.message || 'You are logged in.');
      void queryClient.invalidateQueries({ queryKey: myEnrolmentsQueryKey });
    } catch (failure) {
      setError(userMessage(failure, LOGIN_MESSAGES.failed));
    } finally {
      setSubmitting(false);
    }
  };

  if (signedIn || enrolments.isSuccess) {
    return (
      <FormCard title="Welcome" testId="participant-landing" maxWidth={720}>
        {signedIn && (
          <Alert severity="success" data-testid="participant-login-success">
            {signedIn}
          </Alert>
        )}
        {confirmation}
        <UnconfirmedEmailNotice />
        <Typography>
          Thank you for taking part. Below are your studies and the devices they collect data from.
          Authorize connects a device; Revoke stops the study receiving its data.
        </Typography>
        <ParticipantPortal />
      </FormCard>
    );
  }

  if (enrolments.isPending) {
    return (
      <FormCard title="Participant log in" testId="participant-login-checking" maxWidth={440}>
        <CircularProgress size={24} />
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
      {confirmation}
      <LoginForm
        onSubmit={handleSubmit}
        error={error}
        submitting={submitting}
        idPrefix="participant-login"
        label="Participant log in"
      />
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
