import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Link from '@mui/material/Link';
import { CHANGE_PASSWORD_MESSAGES, PATHS } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useHumanCheck } from '@/lib/human-check';
import { useSignOut } from '@/lib/session';
import { useChangePassword, type ChangePasswordInput } from '../api/change-password';
import { useVerifyHumanCheck } from '../api/verify-human-check';
import { ChangePasswordForm } from '../components/change-password-form';

export const PASSWORD_CHANGED_MESSAGE =
  'Your password has been changed. Please log in with your new password.';

/** /ChangePwdReqPage: human check first, then the change; success ends the session. */
export function ChangePasswordPage() {
  const { getToken } = useHumanCheck();
  const verifyHumanCheck = useVerifyHumanCheck();
  const changePassword = useChangePassword();
  const signOut = useSignOut();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const handleSubmit = async (input: ChangePasswordInput) => {
    setError(null);
    setSubmitting(true);
    try {
      await verifyHumanCheck.mutateAsync(await getToken('change_password'));
      await changePassword.mutateAsync(input);
    } catch (failure) {
      setError(userMessage(failure, CHANGE_PASSWORD_MESSAGES.failed));
      setSubmitting(false);
      return;
    }
    await signOut({ message: PASSWORD_CHANGED_MESSAGE });
  };

  return (
    <FormCard
      title="Change password"
      subtitle="8 to 20 characters with an uppercase and a lowercase letter, a number and a special character. You will be asked to log in again."
      testId="change-password-page"
    >
      <ChangePasswordForm onSubmit={handleSubmit} error={error} submitting={submitting} />
      <Link
        component={RouterLink}
        to={PATHS.resetPasswordRequest}
        variant="body2"
        data-testid="change-password-forgot"
        sx={{ alignSelf: 'flex-start' }}
      >
        Forgot Password?
      </Link>
    </FormCard>
  );
}
