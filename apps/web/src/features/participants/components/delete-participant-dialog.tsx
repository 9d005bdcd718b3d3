import { useState } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PARTICIPANT_MESSAGES, PARTICIPANT_SUCCESS } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { useDeleteParticipant } from '../api/delete-participant';
import type { Participant } from '../api/get-participants';

type DeleteParticipantDialogProps = {
  participant: Pick<Participant, 'id' | 'participant_code'>;
  trialId: number;
  onDeleted: () => void;
  onClose: () => void;
};

/**
 * The Delete Participant? modal. The server deletes the participant's device connections
 * and synced data with them (decision 0016); a failure stays in the dialog (spec §8).
 */
export function DeleteParticipantDialog({
  participant,
  trialId,
  onDeleted,
  onClose,
}: DeleteParticipantDialogProps) {
  const notify = useNotify();
  const remove = useDeleteParticipant();
  const [error, setError] = useState<string | null>(null);

  const confirm = async () => {
    setError(null);
    try {
      const answer = await remove.mutateAsync({ id: participant.id, trialId });
      notify(answer?.message || PARTICIPANT_SUCCESS.deleted, 'success');
      onDeleted();
    } catch {
      setError(PARTICIPANT_MESSAGES.deleteFailed);
    }
  };

  return (
    <Dialog
      open
      onClose={remove.isPending ? undefined : onClose}
      fullWidth
      maxWidth="xs"
      data-testid="delete-participant-dialog"
    >
      <DialogTitle>Delete Participant?</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Typography>
            Participant ID: <strong>{participant.id}</strong>
            <br />
            Code: <strong>{participant.participant_code}</strong>
          </Typography>
          <Typography variant="body2" color="text.secondary">
            The participant&apos;s device connections and synced data are deleted too.
          </Typography>
          {error && (
            <Alert severity="error" data-testid="delete-participant-error">
              {error}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={remove.isPending}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={() => void confirm()}
          disabled={remove.isPending}
          data-testid="delete-participant-confirm"
        >
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
