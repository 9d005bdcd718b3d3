import { Navigate, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useValidateSignupRequest } from '../api/validate-signup-request';
import { ContactUsLink, SIGNUP_PATH, type SignupPageState } from '../components/signup-shared';

export const SIGNUP_LINK_MISSING = 'Error: Sign-up key is missing!';
export const SIGNUP_LINK_INVALID =
  'This sign-up link is invalid or has expired. Please contact us for a new invitation.';

/** /SignupValidation?token=…: the emailed link; checks the key, then opens the form. */
export function SignupValidationPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token')?.trim() || null;
  const validation = useValidateSignupRequest(token);

  if (token && validation.isSuccess) {
    const state: SignupPageState = { token, ...validation.data };
    return <Navigate replace to={SIGNUP_PATH} state={state} />;
  }

  return (
    <FormCard title="Sign up" testId="signup-validation-page">
      {!token ? (
        <>
          <Alert severity="error" data-testid="signup-validation-error">
            {SIGNUP_LINK_MISSING}
          </Alert>
          <ContactUsLink />
        </>
      ) : validation.isError ? (
        <>
          <Alert severity="error" data-testid="signup-validation-error">
            {userMessage(validation.error, SIGNUP_LINK_INVALID)}
          </Alert>
          <ContactUsLink />
        </>
      ) : (
        <Box role="status" aria-label="Checking the sign-up link" sx={{ textAlign: 'center' }}>
          <CircularProgress aria-hidden />
        </Box>
      )}
    </FormCard>
  );
}
