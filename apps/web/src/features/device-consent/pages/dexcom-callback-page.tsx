import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import Typography from '@mui/material/Typography';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { isApiError } from '@/lib/api-client';
import {
  completeDexcomCallback,
  useCompleteDexcomCallback,
  type DexcomEmailInput,
} from '../api/complete-dexcom-callback';
import { AuthorizationComplete } from '../components/authorization-complete';
import { AuthorizationFailed } from '../components/authorization-failed';
import { CanceledMessage } from '../components/canceled-message';
import { DexcomEmailForm } from '../components/dexcom-email-form';
import { AUTHORIZATION_FALLBACK, DENIED_MESSAGE } from '../utils/brand-texts';
import { deviceErrorMessage } from '../utils/device-error-message';
import { postOnce } from '../utils/post-once';

/**
 * /dexcom-callback?code=…&state=… (public; staff are with the participant): asks for the
 * participant's email, completes the authorisation with it, then returns to the trial
 * page (access spec §2). A refused consent is posted once with its state (no email), so
 * the server spends the state and records the refusal.
 */
export function DexcomCallbackPage() {
  const [searchParams] = useSearchParams();
  const authCode = searchParams.get('code') || undefined;
  const state = searchParams.get('state') || undefined;
  const error = searchParams.get('error') || undefined;

  useEffect(() => {
    if (!error || !state) return;
    // The answer is always the refusal text; only the server's record matters here.
    postOnce(`Dexcom:${state}`, () => completeDexcomCallback({ state, error })).catch(
      () => undefined,
    );
  }, [error, state]);

  let content;
  if (error) {
    content = <AuthorizationFailed message={DENIED_MESSAGE.Dexcom} />;
  } else if (authCode && state) {
    content = <DexcomEmailStep authCode={authCode} state={state} />;
  } else {
    content = (
      <Alert severity="error" data-testid="authorization-error">
        {DEVICE_MESSAGES.invalidRequest}
      </Alert>
    );
  }

  return (
    <FormCard title="Dexcom authorization" maxWidth={600} testId="device-callback-page">
      {content}
    </FormCard>
  );
}

function DexcomEmailStep({ authCode, state }: { authCode: string; state: string }) {
  const complete = useCompleteDexcomCallback();
  const [canceled, setCanceled] = useState(false);

  const handleSubmit = ({ email }: DexcomEmailInput) =>
    complete.mutate({ authCode, state, participantData: { email } });

  if (canceled) return <CanceledMessage />;
  if (complete.isSuccess) return <AuthorizationComplete trialId={complete.data.trialId} />;
  const failure = complete.error;
  const error = failure
    ? deviceErrorMessage(failure, 'Dexcom', AUTHORIZATION_FALLBACK.Dexcom)
    : null;
  // 422: the state is spent or expired; another email cannot help.
  if (isApiError(failure) && failure.status === 422) {
    return <AuthorizationFailed message={error ?? DEVICE_MESSAGES.invalidRequest} />;
  }
  return (
    <>
      <Typography>
        Enter the participant&apos;s email address to link their Dexcom account to the study.
      </Typography>
      <DexcomEmailForm
        onSubmit={handleSubmit}
        onCancel={() => setCanceled(true)}
        error={error}
        submitting={complete.isPending}
      />
    </>
  );
}
