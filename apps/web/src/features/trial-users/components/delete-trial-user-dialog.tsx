import TextField from '@mui/material/TextField';
import type { TrialUser } from '../api/get-trial-users';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';

type DeleteTrialUserDialogProps = {
  user: TrialUser;
  submitting: boolean;
  onConfirm: () => void;
  onClose: () => void;
};

/** The Delete User? modal: read-only user id and email. */
export function DeleteTrialUserDialog({
  user,
  submitting,
  onConfirm,
  onClose,
}: DeleteTrialUserDialogProps) {
  return (
    <ConfirmDialog
      title="Delete User?"
      confirmLabel="Delete"
      onConfirm={onConfirm}
      onClose={onClose}
      pending={submitting}
      testId="delete-trial-user"
    >
      <TextField
        id="delete-user-id"
        label="User Id"
        value={String(user.id)}
        sx={{ mt: 1 }}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
      <TextField
        id="delete-user-email"
        label="User Email"
        value={user.email}
        slotProps={{ htmlInput: { readOnly: true } }}
      />
    </ConfirmDialog>
  );
}
