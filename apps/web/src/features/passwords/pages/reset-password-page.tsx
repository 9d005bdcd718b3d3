import { useState } from 'react';
import { Link as RouterLink, useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import { PATHS, RESET_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useResetPassword, type ResetPasswordInput } from '../api/reset-password';
import { useValidateResetToken } from '../api/validate-reset-token';
import { ResetPasswordForm } from '../components/reset-password-form';

/** /ResetPasswordPage?token=…: validates the emailed key, then sets the new password. */
export function ResetPasswordPage() {
  const [searchParams] = useSearchParams();
  const token = searchParams.get('token')?.trim() || null;
  const validation = useValidateResetToken(token);
  const resetPassword = useResetPassword();
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  const handleSubmit = async (input: ResetPasswordInput) => {
    setError(null);
    try {
      await resetPassword.mutateAsync(input);
      setDone(true);
    } catch (failure) {
      setError(userMessage(failure, RESET_MESSAGES.resetFailed));
    }
  };

  let content;
  if (!token) {
    content = (
      <>
        <Alert severity="error" data-testid="reset-missing-key">
          {RESET_MESSAGES.missingKey}
        </Alert>
        <NewRequestLink />
      </>
    );
  } else if (done) {
    content = (
      <>
        <Alert severity="success" data-testid="reset-password-success">
          {RESET_MESSAGES.success}
        </Alert>
        <Link component={RouterLink} to={PATHS.login} data-testid="reset-password-login">
          Log in with your new password
        </Link>
      </>
    );
  } else if (validation.isPending) {
    content = (
      <Box role="status" aria-label="Checking the reset link" sx={{ textAlign: 'center' }}>
        <CircularProgress aria-hidden />
      </Box>
    );
  } else if (validation.isError) {
    content = (
      <>
        <Alert severity="error" data-testid="reset-validation-error">
          {userMessage(validation.error, RESET_MESSAGES.validationFailed)}
        </Alert>
        <NewRequestLink />
      </>
    );
  } else {
    content = (
      <ResetPasswordForm
        token={token}
        onSubmit={handleSubmit}
        error={error}
        submitting={resetPassword.isPending}
      />
    );
  }

  return (
    <FormCard
      title="Set a new password"
      subtitle="8 to 20 characters with an uppercase and a lowercase letter, a number and a special character."
      testId="reset-password-page"
    >
      {content}
    </FormCard>
  );
}

function NewRequestLink() {
  return (
    <Link component={RouterLink} to={PATHS.resetPasswordRequest} data-testid="reset-new-request">
      Request a new reset link
    </Link>
  );
}
