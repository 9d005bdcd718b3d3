import { useState } from 'react';
import { Link as RouterLink, Navigate, useLocation, useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Divider from '@mui/material/Divider';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PATHS, pageForAuthStatus } from '@trialpulse/shared';
import { userMessage } from '@/lib/api-client';
import { SIGNED_OUT, useSession, type Session } from '@/lib/session';
import { useLogin, type LoginInput } from '../api/login';
import { LoginForm } from '../components/login-form';

export const LOGIN_FAILED_MESSAGE = 'Login failed - Please try again.';

type LoginLocationState = { message?: unknown; from?: unknown } | null;

export function LoginPage() {
  const location = useLocation();
  const navigate = useNavigate();
  const { session, refresh, setSession } = useSession();
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

  const handleSubmit = async (input: LoginInput) => {
    setError(null);
    setSigningIn(true);
    try {
      await loginMutation.mutateAsync(input);
    } catch (failure) {
      setSession(SIGNED_OUT);
      setError(userMessage(failure, LOGIN_FAILED_MESSAGE));
      setSigningIn(false);
      return;
    }
    const next = await refresh();
    if (next.status === 'signed-out') {
      setError(LOGIN_FAILED_MESSAGE);
      setSigningIn(false);
      return;
    }
    await navigate(pageForSession(next, from), { replace: true });
  };

  return (
    <Box sx={{ display: 'flex', justifyContent: 'center' }}>
      <Paper
        variant="outlined"
        data-testid="login-page"
        sx={{ width: '100%', maxWidth: 440, p: { xs: 3, sm: 5 } }}
      >
        <Stack spacing={3}>
          <div>
            <Typography variant="h1" component="h1">
              Log in
            </Typography>
            <Typography color="text.secondary" sx={{ mt: 0.5 }}>
              Sign in with your research staff account.
            </Typography>
          </div>
          {notice && (
            <Alert severity="info" data-testid="login-notice">
              {notice}
            </Alert>
          )}
          <LoginForm onSubmit={handleSubmit} error={error} submitting={signingIn} />
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
        </Stack>
      </Paper>
    </Box>
  );
}

/** Fully signed in: back to the page the guard sent the user away from, or home. */
function pageForSession(session: Session, from: string | null): string {
  if (session.status === 'signed-out') return PATHS.home;
  const authStatus = session.status === 'signed-in' ? session.user.authStatus : session.authStatus;
  if (authStatus === 'Authorized' && from && from !== PATHS.login) return from;
  return pageForAuthStatus(authStatus);
}
