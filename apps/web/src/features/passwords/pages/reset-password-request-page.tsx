import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Link from '@mui/material/Link';
import { PATHS, RESET_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import { useForgotPassword, type ForgotPasswordFormInput } from '../api/forgot-password';
import { ForgotPasswordForm } from '../components/forgot-password-form';

/** /ResetPwdReqPage: asks for a reset link; the same confirmation whatever the email. */
export function ResetPasswordRequestPage() {
  const { getToken } = useHumanCheck();
  const forgotPassword = useForgotPassword();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);
  const [sent, setSent] = useState(false);

  const handleSubmit = async (input: ForgotPasswordFormInput) => {
    setError(null);
    setSubmitting(true);
    try {
      const recaptchaResponse = await getToken('forgot_password');
      await forgotPassword.mutateAsync({ ...input, recaptchaResponse });
      setSent(true);
    } catch (failure) {
      setError(userMessage(failure, RESET_MESSAGES.requestFailed));
    } finally {
      setSubmitting(false);
    }
  };

  return (
    <FormCard
      title="Reset password"
      subtitle="Enter the email address of your account and we will send you a link to set a new password."
      testId="reset-request-page"
    >
      {sent ? (
        <Alert severity="success" data-testid="reset-request-confirmation">
          {RESET_MESSAGES.requestConfirmation}
        </Alert>
      ) : (
        <ForgotPasswordForm onSubmit={handleSubmit} error={error} submitting={submitting} />
      )}
      <Link
        component={RouterLink}
        to={PATHS.login}
        variant="body2"
        data-testid="reset-request-login"
        sx={{ alignSelf: 'flex-start' }}
      >
        Back to log in
      </Link>
    </FormCard>
  );
}
