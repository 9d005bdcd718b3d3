import { useEffect, useState } from 'react';
import { Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Typography from '@mui/material/Typography';
import { LIMITS, PATHS, SIGNUP_MESSAGES, type SignupInput } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { HumanCheckError, useHumanCheck } from '@/lib/human-check';
import { useSignup } from '../api/signup';
import {
  ContactUsLink,
  SIGNUP_VALIDATION_PATH,
  signupPageStateSchema,
  type SignupPageState,
} from '../components/signup-shared';
import { SignupForm } from '../components/signup-form';

export const SIGNUP_NEEDS_INVITATION =
  'This page opens from the sign-up link in your invitation email.';

/**
 * /SignupPage: the registration form for an invitation checked by /SignupValidation
 * (carried in navigation state). After success a notice, then /LoginPage after 1500 ms.
 */
export function SignupPage() {
  const location = useLocation();
  const [searchParams] = useSearchParams();
  const invitation = signupPageStateSchema.safeParse(location.state);
  const linkToken = searchParams.get('token');

  if (!invitation.success) {
    // An emailed link that points here directly is checked first.
    if (linkToken) {
      return (
        <Navigate
          replace
          to={`${SIGNUP_VALIDATION_PATH}?${new URLSearchParams({ token: linkToken })}`}
        />
      );
    }
    return (
      <FormCard title="Sign up" testId="signup-page">
        <Alert severity="info" data-testid="signup-no-invitation">
          {SIGNUP_NEEDS_INVITATION} New to TrialPulse? Accounts are created for research teams on
          request.
        </Alert>
        <ContactUsLink />
      </FormCard>
    );
  }
  return <SignupWithInvitation invitation={invitation.data} />;
}

function SignupWithInvitation({ invitation }: { invitation: SignupPageState }) {
  const navigate = useNavigate();
  const notify = useNotify();
  const { getToken } = useHumanCheck();
  const signup = useSignup();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [success, setSuccess] = useState<{ message: string; redirectTo: string } | null>(null);

  useEffect(() => {
    if (!success) return;
    const timer = setTimeout(
      () => void navigate(success.redirectTo, { replace: true }),
      LIMITS.signupRedirectMs,
    );
    return () => clearTimeout(timer);
  }, [success, navigate]);

  const handleSubmit = async (input: SignupInput) => {
    setError(null);
    setSubmitting(true);
    try {
      const recaptchaResponse = await getToken('signup');
      const answer = await signup.mutateAsync({
        ...input,
        token: invitation.token,
        email: invitation.email,
        username: invitation.email,
        role: invitation.role,
        teamId: invitation.teamId,
        teamName: invitation.teamName,
        recaptchaResponse,
      });
      if (answer?.success === false) {
        setError(answer.message || SIGNUP_MESSAGES.unsuccessful);
        setSubmitting(false);
        return;
      }
      const message = answer?.message || SIGNUP_MESSAGES.success;
      notify(message, 'success');
      setSuccess({ message, redirectTo: safeRedirect(answer?.data?.redirectTo) });
    } catch (failure) {
      setError(
        failure instanceof HumanCheckError
          ? SIGNUP_MESSAGES.failed
          : userMessage(failure, SIGNUP_MESSAGES.failed),
      );
      setSubmitting(false);
    }
  };

  return (
    <FormCard
      title="Sign up"
      subtitle={
        <>
          You were invited to the team <strong>{invitation.teamName}</strong> as{' '}
          <strong>{invitation.role}</strong>.
        </>
      }
      testId="signup-page"
      maxWidth={560}
    >
      {success ? (
        <Alert severity="success" data-testid="signup-success">
          {success.message}
          <Typography variant="body2">Taking you to the login page…</Typography>
        </Alert>
      ) : (
        <SignupForm
          token={invitation.token}
          email={invitation.email}
          onSubmit={handleSubmit}
          error={error}
          submitting={submitting}
        />
      )}
    </FormCard>
  );
}

/** Only a path of this app; anything else goes to the login page. */
function safeRedirect(target: unknown): string {
  return typeof target === 'string' && target.startsWith('/') && !target.startsWith('//')
    ? target
    : PATHS.login;
}
