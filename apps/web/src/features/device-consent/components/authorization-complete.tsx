import { useEffect } from 'react';
import { useNavigate } from 'react-router';
import Alert from '@mui/material/Alert';
import { DEVICE_MESSAGES } from '@trialpulse/shared';
import { isFullySignedIn, useSession } from '@/lib/session';
import { useTrial } from '@/lib/api/trials';
import { DEVICE_CONSENT_PATHS } from '../utils/paths';
import { BusyStatus } from './busy-status';

/**
 * A completed authorisation (device-data spec §4): a signed-in staff member goes back to
 * the participant's trial page, handed the trial row the way the trials table hands it;
 * anyone else — the participant on their own device — is told to close the page. When
 * the trial cannot be found among the caller's trials, the close-page text stands.
 */
export function AuthorizationComplete({ trialId }: { trialId: number }) {
  const { session } = useSession();
  const signedIn = isFullySignedIn(session);
  const trial = useTrial(signedIn ? trialId : null);
  const navigate = useNavigate();
  const found = trial.data ?? null;

  useEffect(() => {
    if (!found) return;
    void navigate(DEVICE_CONSENT_PATHS.trialPage, { replace: true, state: { trial: found } });
  }, [found, navigate]);

  if (signedIn && (trial.isPending || found)) return <BusyStatus label="Opening the trial page" />;
  return (
    <Alert severity="success" data-testid="authorization-complete">
      {DEVICE_MESSAGES.authorized}
    </Alert>
  );
}
