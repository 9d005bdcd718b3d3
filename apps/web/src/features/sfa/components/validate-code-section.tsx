import { useState } from 'react';
import { useSession } from '@/lib/session';
import { useValidateTotp } from '../api/validate-totp';
import { useCodeFailure } from '../hooks/use-sfa-session';
import { SfaCodeForm, type SfaCodeFormValues } from './sfa-code-form';

/**
 * Validates this sign-in with an authenticator or emailed code (the server accepts
 * either), optionally remembering the device; success makes the session Authorized.
 * Used inside pages that call `useLeaveWhenAuthorized`.
 */
export function ValidateCodeSection({ codeLabel }: { codeLabel: string }) {
  const validate = useValidateTotp();
  const { refresh } = useSession();
  const codeFailure = useCodeFailure();
  const [error, setError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  const handleSubmit = async (input: SfaCodeFormValues) => {
    setError(null);
    setSubmitting(true);
    try {
      const result = await validate.mutateAsync(input);
      if (!result.success) throw new Error('validateTOTP answered without success');
    } catch (failure) {
      const message = await codeFailure(failure);
      if (message !== null) {
        setError(message);
        setSubmitting(false);
      }
      return;
    }
    // Authorized now: the page moves on once the new session renders (useLeaveWhenAuthorized).
    await refresh();
  };

  return (
    <SfaCodeForm
      name="Validate second factor"
      codeLabel={codeLabel}
      submitLabel="Validate"
      submitTestId="sfa-validate-submit"
      withRememberDevice
      submitting={submitting}
      error={error}
      onSubmit={handleSubmit}
    />
  );
}
