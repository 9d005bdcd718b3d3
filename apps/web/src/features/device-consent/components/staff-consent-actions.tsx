import { useState } from 'react';
import { Link as RouterLink } from 'react-router';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import CircularProgress from '@mui/material/CircularProgress';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import {
  CONSENT_LINK_LIFETIME_HOURS,
  DEVICE_MESSAGES,
  GENERIC_ERROR_MESSAGE,
  type DeviceBrandName,
  type Participant,
  type Trial,
} from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { useAuthorizeDevice } from '../api/authorize-device';
import { useSendConsentEmail } from '@/lib/api/consent-email';
import { AUTHORIZATION_FALLBACK, BRAND_DATA } from '../utils/brand-texts';
import { deviceErrorMessage } from '../utils/device-error-message';
import { leaveForProvider } from '../utils/leave-for-provider';
import { DEVICE_CONSENT_PATHS } from '../utils/paths';

type StaffConsentActionsProps = {
  brand: DeviceBrandName;
  participant: Participant;
  /** The participant's trial, when the page was opened from it (for the way back). */
  trial: Trial | null;
  /** Offer the emailed consent link (Fitbit and Omron; Dexcom is linked in person). */
  canEmail: boolean;
};

/**
 * Staff linking a participant's device: authorise now, with the participant signing in to
 * the provider on this computer, or email the participant a consent link.
 */
export function StaffConsentActions({
  brand,
  participant,
  trial,
  canEmail,
}: StaffConsentActionsProps) {
  const authorize = useAuthorizeDevice();
  const sendEmail = useSendConsentEmail();
  const notify = useNotify();
  const [redirecting, setRedirecting] = useState(false);
  const authorizing = authorize.isPending || redirecting;
  const busy = authorizing || sendEmail.isPending;
  // The last action's failure; starting one action clears the other's.
  const error = authorize.isError
    ? deviceErrorMessage(authorize.error, brand, AUTHORIZATION_FALLBACK[brand])
    : sendEmail.isError
      ? deviceErrorMessage(sendEmail.error, brand, GENERIC_ERROR_MESSAGE)
      : null;

  const handleAuthorize = async () => {
    sendEmail.reset();
    // mutateAsync: a re-mount during the call must not swallow the redirect.
    const authorizeUrl = await authorize
      .mutateAsync({ participantId: participant.id, brand })
      .catch(() => undefined);
    if (!authorizeUrl) return; // the error shows from the mutation's state
    setRedirecting(true);
    leaveForProvider(authorizeUrl);
  };

  const handleSendEmail = async () => {
    if (brand === 'Dexcom') return;
    authorize.reset();
    // mutateAsync, as above: mutate's own callbacks are dropped when the page re-mounts while
    // the mail goes out, and the staff member would see no confirmation of a sent email.
    const answer = await sendEmail
      .mutateAsync({ participantId: participant.id, brand })
      .catch(() => undefined);
    if (!answer) return; // the error shows from the mutation's state
    notify(DEVICE_MESSAGES.consentEmailSent, 'success');
  };

  return (
    <Stack spacing={3} data-testid="participant-consent-page">
      <div>
        <Typography variant="h1" component="h1">
          {brand} consent
        </Typography>
        {trial?.trialId === participant.trialId && (
          <Link
            component={RouterLink}
            to={DEVICE_CONSENT_PATHS.participant}
            state={{ participant, trial }}
            data-testid="participant-consent-back"
          >
            Back to participant {participant.participant_code}
          </Link>
        )}
      </div>
      <Paper variant="outlined" sx={{ p: { xs: 2, sm: 3 } }}>
        <Stack spacing={2}>
          <Typography>
            Participant:{' '}
            <strong data-testid="participant-code">{participant.participant_code}</strong>
          </Typography>
          <Typography color="text.secondary">
            The participant grants the study access to the data their {brand} account records (
            {BRAND_DATA[brand]}). Authorize now when the participant is here to sign in to {brand}{' '}
            on this computer.
          </Typography>
          {canEmail && (
            <Typography color="text.secondary">
              Send consent link emails the participant a link to do it themselves; the link stays
              valid for {CONSENT_LINK_LIFETIME_HOURS} hours.
            </Typography>
          )}
          {error && (
            <Alert severity="error" data-testid="participant-consent-error">
              {error}
            </Alert>
          )}
          <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
            <Button
              variant="contained"
              onClick={() => void handleAuthorize()}
              disabled={busy}
              startIcon={authorizing ? <CircularProgress size={18} color="inherit" /> : undefined}
            >
              Authorize now (participant present)
            </Button>
            {canEmail && (
              <Button
                variant="outlined"
                onClick={() => void handleSendEmail()}
                disabled={busy}
                startIcon={
                  sendEmail.isPending ? <CircularProgress size={18} color="inherit" /> : undefined
                }
              >
                Send consent link
              </Button>
            )}
          </Stack>
        </Stack>
      </Paper>
    </Stack>
  );
}
