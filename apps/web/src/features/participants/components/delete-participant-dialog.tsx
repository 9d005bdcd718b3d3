import { useState } from 'react';
import Typography from '@mui/material/Typography';
import { PARTICIPANT_MESSAGES, PARTICIPANT_SUCCESS } from '@trialpulse/shared';
import { useNotify } from '@/components/notifications';
import { useDeleteParticipant } from '../api/delete-participant';
import type { Participant } from '../api/get-participants';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';

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
    <ConfirmDialog
      title="Delete Participant?"
      confirmLabel="Delete"
      onConfirm={() => void confirm()}
      onClose={onClose}
      pending={remove.isPending}
      error={error}
      testId="delete-participant"
    >
      <Typography>
        Participant ID: <strong>{participant.id}</strong>
        <br />
        Code: <strong>{participant.participant_code}</strong>
      </Typography>
      <Typography variant="body2" color="text.secondary">
        The participant&apos;s device connections and synced data are deleted too.
      </Typography>
    </ConfirmDialog>
  );
}
