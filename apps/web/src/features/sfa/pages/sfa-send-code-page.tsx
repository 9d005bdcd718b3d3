import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Divider from '@mui/material/Divider';
import Stack from '@mui/material/Stack';
import { FormCard } from '@/components/ui/form-card';
import { userMessage } from '@/lib/api-client';
import { useSession } from '@/lib/session';
import { useGenerateSendEmailTotp } from '../api/generate-send-email-totp';
import { ValidateCodeSection } from '../components/validate-code-section';
import { useLeaveWhenAuthorized } from '../hooks/use-sfa-session';
import { SFA_PATHS, SFA_TEXT } from '../sfa-constants';

type SendState = { kind: 'sending' } | { kind: 'sent' } | { kind: 'failed'; detail: string | null };

/**
 * /SFASendCodeViaMsgPage: emails a code as soon as it opens (once, also under StrictMode),
 * then takes that code; re-send, or switch to the authenticator.
 */
export function SfaSendCodePage() {
  const { refresh } = useSession();
  const navigate = useNavigate();
  const { mutateAsync: sendEmailCode, isPending } = useGenerateSendEmailTotp();
  const authorized = useLeaveWhenAuthorized();
  const [state, setState] = useState<SendState>({ kind: 'sending' });
  const requested = useRef(false);

  const sendCode = useCallback(async () => {
    setState({ kind: 'sending' });
    let result;
    try {
      result = await sendEmailCode();
    } catch (failure) {
      setState({ kind: 'failed', detail: userMessage(failure, '') || null });
      return;
    }
    if (result.success) {
      setState({ kind: 'sent' });
      // The status is now SFAValidateEmailCodeNeeded; the guard must know.
      void refresh();
    } else if (result.message === SFA_TEXT.alreadyValidated) {
      // Authorized already: the refreshed session moves the page on.
      await refresh();
    } else {
      setState({ kind: 'failed', detail: null });
    }
  }, [sendEmailCode, refresh]);

  // A ref survives StrictMode's effect replay, so one visit sends one email.
  useEffect(() => {
    if (requested.current || authorized) return;
    requested.current = true;
    void sendCode();
  }, [sendCode, authorized]);

  return (
    <FormCard
      title="Code by email"
      subtitle="Enter the 6-digit code from the email. It is valid for 10 minutes."
      testId="sfa-send-code-page"
    >
      {state.kind === 'sending' && (
        <Alert severity="info" icon={<CircularProgress size={20} />} data-testid="sfa-code-sending">
          Sending a code to your email address…
        </Alert>
      )}
      {state.kind === 'sent' && (
        <Alert severity="info" data-testid="sfa-code-sent">
          {SFA_TEXT.codeSent}
        </Alert>
      )}
      {state.kind === 'failed' && (
        <Alert severity="error" data-testid="sfa-send-error">
          <div>{SFA_TEXT.sendEmailFailed}</div>
          {state.detail && <div>{state.detail}</div>}
          <div>You can use your authenticator app instead.</div>
        </Alert>
      )}
      <ValidateCodeSection codeLabel="Emailed code" />
      <Divider />
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={1.5}>
        <Button
          variant="outlined"
          disabled={isPending}
          data-testid="sfa-resend"
          onClick={() => void sendCode()}
        >
          Re-send code
        </Button>
        <Button
          data-testid="sfa-use-authenticator"
          onClick={() => void navigate(SFA_PATHS.validate)}
        >
          Use the authenticator instead
        </Button>
      </Stack>
    </FormCard>
  );
}
