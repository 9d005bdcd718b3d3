import { useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { FormCard } from '@/components/ui/form-card';
import { isApiError, userMessage } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import {
  InvalidSetupError,
  secondFactorSetupQueryKey,
  useSecondFactorSetup,
} from '../api/get-second-factor-setup';
import { useResetSfa } from '../api/reset-sfa';
import { AuthenticatorSecret } from '../components/authenticator-secret';
import { SendCodeByEmailButton } from '../components/send-code-by-email-button';
import { VerifyCodeSection } from '../components/verify-code-section';

/** /SFASetupPage: a new authenticator secret (QR and key), its first code, or email instead. */
export function SfaSetupPage() {
  const setup = useSecondFactorSetup();

  return (
    <FormCard
      title="Set up your authenticator"
      subtitle="Your account is protected by a second factor: a 6-digit code from an app on your phone."
      testId="sfa-setup-page"
      maxWidth={560}
    >
      <Typography component="ol" variant="body2" sx={{ m: 0, pl: 2.5, '& li + li': { mt: 0.5 } }}>
        <li>
          Install an authenticator app such as Google Authenticator or Microsoft Authenticator.
        </li>
        <li>Scan the QR code below with the app, or enter the key by hand.</li>
        <li>
          Enter the 6-digit code the app shows and select Verify. You will then be asked to log in
          again.
        </li>
      </Typography>
      {setup.isPending && (
        <Stack
          direction="row"
          spacing={1.5}
          sx={{ alignItems: 'center' }}
          data-testid="sfa-setup-loading"
        >
          <CircularProgress size={20} />
          <Typography color="text.secondary">Preparing your key…</Typography>
        </Stack>
      )}
      {setup.isError && <SetupFailure error={setup.error} />}
      {setup.data && (
        <>
          <AuthenticatorSecret setup={setup.data} />
          <VerifyCodeSection />
        </>
      )}
      <Divider />
      <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
        <Typography variant="body2" color="text.secondary">
          No authenticator app at hand? Sign in with a code sent to your email address.
        </Typography>
        <SendCodeByEmailButton />
      </Stack>
    </FormCard>
  );
}

/**
 * A refused or unusable setup. An Authorized user whose authenticator is already set up
 * (409) may replace it: reset, then the page fetches a new secret.
 */
function SetupFailure({ error }: { error: Error }) {
  const { session, refresh } = useSession();
  const queryClient = useQueryClient();
  const reset = useResetSfa();
  const [resetError, setResetError] = useState<string | null>(null);
  const canReset = isApiError(error) && error.status === 409 && session.status === 'signed-in';

  const handleReset = async () => {
    setResetError(null);
    try {
      await reset.mutateAsync();
    } catch (failure) {
      setResetError(userMessage(failure));
      return;
    }
    await refresh();
    // The session change may remount this page, which starts the fetch itself: join it.
    await queryClient.refetchQueries(
      { queryKey: secondFactorSetupQueryKey },
      { cancelRefetch: false },
    );
  };

  return (
    <Stack spacing={1.5}>
      <Alert severity={canReset ? 'info' : 'error'} data-testid="sfa-setup-error">
        {error instanceof InvalidSetupError ? error.message : userMessage(error)}
      </Alert>
      {canReset && (
        <>
          <Typography variant="body2" color="text.secondary">
            Setting up a new authenticator replaces the current one: codes from the old app stop
            working and remembered devices are forgotten.
          </Typography>
          {resetError && (
            <Alert severity="error" data-testid="sfa-reset-error">
              {resetError}
            </Alert>
          )}
          <Button
            variant="contained"
            disabled={reset.isPending}
            data-testid="sfa-reset"
            onClick={() => void handleReset()}
            sx={{ alignSelf: 'flex-start' }}
          >
            Set up a new authenticator
          </Button>
        </>
      )}
    </Stack>
  );
}
