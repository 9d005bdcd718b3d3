import { useSearchParams } from 'react-router';
import Alert from '@mui/material/Alert';
import { DEVICE_MESSAGES, type ConsentLinkBrand } from '@trialpulse/shared';
import { FormCard } from '@/components/ui/form-card';
import { AuthorizationComplete } from '../components/authorization-complete';
import { AuthorizationFailed } from '../components/authorization-failed';
import { BusyStatus } from '../components/busy-status';
import { useCallbackResult, type CallbackParams } from '../hooks/use-callback-result';
import { AUTHORIZATION_FALLBACK, DENIED_MESSAGE } from '../utils/brand-texts';
import { deviceErrorMessage } from '../utils/device-error-message';

/** /fitbit-callback?code=…&state=… or ?error=…&state=… (public). */
export function FitbitCallbackPage() {
  return <DeviceCallbackPage brand="Fitbit" />;
}

/** /omron-callback?code=…&state=… or ?error=…&state=… (public). */
export function OmronCallbackPage() {
  return <DeviceCallbackPage brand="Omron" />;
}

/**
 * Where the provider sends the browser back (device-data spec §4 "Fitbit authorisation"):
 * the code — or the provider's error when the participant pressed Deny — goes to the
 * server once with the state; then the outcome. Without a code or an error (or without
 * the state) there is nothing to complete.
 */
export function DeviceCallbackPage({ brand }: { brand: ConsentLinkBrand }) {
  const [searchParams] = useSearchParams();
  const authCode = searchParams.get('code') || undefined;
  const state = searchParams.get('state') || undefined;
  const error = searchParams.get('error') || undefined;

  let content;
  if (state && (authCode || error)) {
    content = <CallbackOutcome brand={brand} params={{ authCode, state, error }} />;
  } else if (error) {
    // Refused at the provider, but without the state the server cannot be told which request.
    content = <AuthorizationFailed message={DENIED_MESSAGE[brand]} />;
  } else {
    content = (
      <Alert severity="error" data-testid="authorization-error">
        {DEVICE_MESSAGES.invalidRequest}
      </Alert>
    );
  }

  return (
    <FormCard title={`${brand} authorization`} maxWidth={600} testId="device-callback-page">
      {content}
    </FormCard>
  );
}

function CallbackOutcome({ brand, params }: { brand: ConsentLinkBrand; params: CallbackParams }) {
  const result = useCallbackResult(brand, params);
  switch (result.status) {
    case 'pending':
      return <BusyStatus label="Completing the authorization" />;
    case 'success':
      return <AuthorizationComplete trialId={result.data.trialId} />;
    case 'error':
      return (
        <AuthorizationFailed
          message={deviceErrorMessage(result.error, brand, AUTHORIZATION_FALLBACK[brand])}
        />
      );
  }
}
