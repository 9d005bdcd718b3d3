import { useEffect, useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import { GENERIC_ERROR_MESSAGE, PARTICIPANT_EMAIL_MESSAGES } from '@trialpulse/shared';
import { userMessage } from '@/lib/api-client';
import {
  useParticipantMe,
  useRefreshPortal,
  useResendVerification,
  verifyParticipantEmail,
} from '../api/email-verification';

/** One confirmation per token for the life of the page (StrictMode mounts effects twice). */
const confirmations = new Map<string, Promise<string>>();

/**
 * The emailed confirmation link opens /ParticipantLoginPage?verifyEmail=…: confirm the
 * address once and say how it went; a signed-in participant's portal then shows the studies.
 */
export function EmailConfirmationResult({ token }: { token: string }) {
  const refreshPortal = useRefreshPortal();
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | null>(null);

  useEffect(() => {
    let pending = confirmations.get(token);
    if (!pending) {
      pending = verifyParticipantEmail(token);
      confirmations.set(token, pending);
    }
    let active = true;
    pending.then(
      (message) => {
        if (!active) return;
        setOutcome({ ok: true, message });
        refreshPortal();
      },
      (failure: unknown) => {
        if (active)
          setOutcome({
            ok: false,
            message: userMessage(failure, PARTICIPANT_EMAIL_MESSAGES.verificationInvalid),
          });
      },
    );
    return () => {
      active = false;
    };
    // refreshPortal is a new function each render; the token alone decides.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [token]);

  if (!outcome) return null;
  return (
    <Alert severity={outcome.ok ? 'success' : 'error'} data-testid="email-confirmation-result">
      {outcome.message}
    </Alert>
  );
}

/** In the portal while the address is not confirmed: why no study shows, and a new link. */
export function UnconfirmedEmailNotice() {
  const me = useParticipantMe(true);
  const resend = useResendVerification();
  if (!me.data || me.data.emailVerified) return null;
  return (
    <Alert severity="info" data-testid="email-unconfirmed">
      <Stack spacing={1} sx={{ alignItems: 'flex-start' }}>
        <span>{PARTICIPANT_EMAIL_MESSAGES.pleaseVerify}</span>
        {resend.isSuccess ? (
          <strong data-testid="email-confirmation-sent">{resend.data}</strong>
        ) : (
          <Button
            size="small"
            variant="outlined"
            disabled={resend.isPending}
            onClick={() => resend.mutate()}
          >
            Send the confirmation email again
          </Button>
        )}
        {resend.isError && (
          <span role="alert">{userMessage(resend.error, GENERIC_ERROR_MESSAGE)}</span>
        )}
      </Stack>
    </Alert>
  );
}
