import { useState } from 'react';
import { forgetUserBrowserState } from '@/components/data-table/browser-storage';
import { Link as RouterLink, Navigate, useLocation, useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Typography from '@mui/material/Typography';
import { LOGIN_MESSAGES, PATHS, pageForAuthStatus } from '@trialpulse/shared';
import { DevMailboxLink } from '@/components/dev-mailbox-link';
import { FormCard } from '@/components/ui/form-card';
import { isApiError, userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import {
  SIGNED_OUT,
  markFreshSignIn,
  sessionFromUser,
  useSession,
  type Session,
} from '@/lib/session';
import { useLogin } from '../api/login';
import { LoginForm, type LoginFormInput } from '@/components/form/login-form';

type LoginLocationState = { message?: unknown; from?: unknown } | null;

export function LoginPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const { session, refresh, setSession } = useSession();
  const { getToken } = useHumanCheck();
  const loginMutation = useLogin();
  const [error, setError] = useState<string | null>(null);
  const [signingIn, setSigningIn] = useState(false);

  const state = location.state as LoginLocationState;
  const notice = typeof state?.message === 'string' ? state.message : null;
  const from = typeof state?.from === 'string' ? state.from : null;

  // Already signed in (also half-way through the second factor): on to where the status leads.
  if (session.status !== 'signed-out' && !signingIn) {
    return <Navigate replace to={pageForSession(session, null)} />;
  }

  const fail = (message: string) => {
    setSession(SIGNED_OUT);
    setError(message);
    setSigningIn(false);
  };

  const handleSubmit = async (input: LoginFormInput) => {
    setError(null);
    setSigningIn(true);
    let recaptchaResponse: string;
    try {
      recaptchaResponse = await getToken('login');
    } catch {
      fail(LOGIN_MESSAGES.humanCheck);
      return;
    }
    let answer;
    try {
      answer = await loginMutation.mutateAsync({ ...input, recaptchaResponse });
    } catch (failure) {
      fail(loginErrorMessage(failure));
      return;
    }
    markFreshSignIn();
    // A new sign-in starts clean even if the last person never logged out.
    forgetUserBrowserState();
    const next = sessionFromUser(answer.user) ?? (await refresh());
    if (next.status === 'signed-out') {
      fail(LOGIN_MESSAGES.failed);
      return;
    }
    setSession(next);
    await navigate(pageForSession(next, from), { replace: true });
  };

  return (
    <FormCard
      title="Log in"
      subtitle="Sign in with your research staff account."
      testId="login-page"
      maxWidth={440}
    >
      {notice && (
        <Alert severity="info" data-testid="login-notice">
          {notice}
        </Alert>
      )}
      <LoginForm
        onSubmit={handleSubmit}
        error={error}
        submitting={signingIn}
        idPrefix="login"
        label="Log in"
        autoFocus
      />
      <Link
        component={RouterLink}
        to={PATHS.resetPasswordRequest}
        variant="body2"
        data-testid="login-forgot-password"
        sx={{ alignSelf: 'flex-start' }}
      >
        Forgot password?
      </Link>
      <Divider />
      <Typography variant="body2" color="text.secondary">
        New to TrialPulse? Accounts are created for research teams on request —{' '}
        <Link component={RouterLink} to={PATHS.contactUs} data-testid="login-contact-us">
          contact us
        </Link>{' '}
        to sign up.
      </Typography>
      <DevMailboxLink />
    </FormCard>
  );
}

/**
 * Spec §8: the server's text when displayable; a role-less account gets its own text; an
 * unreachable server or a server fault says so ("Login failed: ..."); anything else gets
 * "Login failed - Please try again.".
 */
function loginErrorMessage(failure: unknown): string {
  if (isApiError(failure) && failure.status === 403) {
    return userMessage(failure, LOGIN_MESSAGES.roleMissing);
  }
  if (isApiError(failure) && failure.isNetworkError) return LOGIN_MESSAGES.unreachable;
  if (isApiError(failure) && failure.status >= 500) {
    return userMessage(failure, LOGIN_MESSAGES.serverError);
  }
  return userMessage(failure, LOGIN_MESSAGES.failed);
}

/** Fully signed in: back to the page the guard sent the user away from, or home. */
function pageForSession(session: Session, from: string | null): string {
  if (session.status === 'signed-out') return PATHS.home;
  const authStatus = session.status === 'signed-in' ? session.user.authStatus : session.authStatus;
  if (authStatus === 'Authorized' && from && isInternalPath(from) && from !== PATHS.login)
    return from;
  return pageForAuthStatus(authStatus);
}

function isInternalPath(path: string): boolean {
  return path.startsWith('/') && !path.startsWith('//');
}
