import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Checkbox from '@mui/material/Checkbox';
import FormControlLabel from '@mui/material/FormControlLabel';
import Typography from '@mui/material/Typography';
import { TRIAL_MESSAGES } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { isTrialWithParticipants, useDeleteTrial } from '../api/delete-trial';
import type { Trial } from '@/lib/api/trials';
import { trialErrorMessage } from '../utils/trial-error-message';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';

/**
 * The Delete Trial? modal. A trial that still has participants is refused by the server
 * (409); the modal then asks to confirm deleting the participants too and resends with
 * `cascade: true`.
 */
export function DeleteTrialDialog({ trial, onClose }: { trial: Trial; onClose: () => void }) {
  const notify = useNotify();
  const remove = useDeleteTrial();
  const [error, setError] = useState<string | null>(null);
  const [needsCascade, setNeedsCascade] = useState(false);
  const [cascadeConfirmed, setCascadeConfirmed] = useState(false);

  const confirm = async () => {
    setError(null);
    try {
      const answer = await remove.mutateAsync(
        needsCascade ? { trialId: trial.trialId, cascade: true } : { trialId: trial.trialId },
      );
      notify(answer?.message || 'Trial deleted.', 'success');
      onClose();
    } catch (failure) {
      if (!needsCascade && isTrialWithParticipants(failure)) {
        setNeedsCascade(true);
        return;
      }
      setError(trialErrorMessage(failure, TRIAL_MESSAGES.deleteFailed));
    }
  };

  return (
    <ConfirmDialog
      title="Delete Trial?"
      confirmLabel="Delete"
      onConfirm={() => void confirm()}
      onClose={onClose}
      pending={remove.isPending}
      confirmDisabled={needsCascade && !cascadeConfirmed}
      error={error}
      testId="delete-trial"
    >
      <Typography>
        Trial Number: <strong>{trial.trialNumber}</strong>
        <br />
        Trial Name: <strong>{trial.trialName}</strong>
      </Typography>
      {needsCascade && (
        <Alert severity="warning" data-testid="delete-trial-has-participants">
          {TRIAL_MESSAGES.hasParticipants}
        </Alert>
      )}
      {needsCascade && (
        <FormControlLabel
          control={
            <Checkbox
              checked={cascadeConfirmed}
              onChange={(event) => setCascadeConfirmed(event.target.checked)}
              data-testid="delete-trial-cascade"
            />
          }
          label="Delete the trial and its participants"
        />
      )}
    </ConfirmDialog>
  );
}
