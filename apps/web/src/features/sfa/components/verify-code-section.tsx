import { useState } from 'react';
import { useSignOut } from '@/lib/session';
import { SFA_TEXT } from '../sfa-constants';
import { useVerifyTotp } from '../api/verify-totp';
import { useCodeFailure } from '../hooks/use-sfa-session';
import { SfaCodeForm, type SfaCodeFormValues } from './sfa-code-form';

/**
 * Confirms a pending authenticator set-up. The server ends the session on success, so the
 * client signs out too and the login page asks the user to sign in again.
 */
export function VerifyCodeSection() {
  const verify = useVerifyTotp();
  const codeFailure = useCodeFailure();
  const signOut = useSignOut();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const handleSubmit = async ({ sfaToken }: SfaCodeFormValues) => {
    setError(null);
    setSubmitting(true);
    try {
      const result = await verify.mutateAsync({ sfaToken });
      if (!result.success) throw new Error('verifyTOTP answered without success');
    } catch (failure) {
      const message = await codeFailure(failure);
      if (message !== null) {
        setError(message);
        setSubmitting(false);
      }
      return;
    }
    await signOut({ message: SFA_TEXT.setupComplete });
  };

  return (
    <SfaCodeForm
      name="Verify authenticator"
      codeLabel="Authenticator code"
      submitLabel="Verify"
      submitTestId="sfa-verify-submit"
      submitting={submitting}
      error={error}
      onSubmit={handleSubmit}
    />
  );
}
