import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import type { TrialUser } from '../api/get-trial-users';

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
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="xs"
      data-testid="delete-trial-user-dialog"
    >
      <DialogTitle>Delete User?</DialogTitle>
      <DialogContent>
        <Stack spacing={2} sx={{ pt: 1 }}>
          <TextField
            id="delete-user-id"
            label="User Id"
            value={String(user.id)}
            slotProps={{ htmlInput: { readOnly: true } }}
          />
          <TextField
            id="delete-user-email"
            label="User Email"
            value={user.email}
            slotProps={{ htmlInput: { readOnly: true } }}
          />
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={submitting}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={onConfirm}
          disabled={submitting}
          data-testid="delete-trial-user-confirm"
        >
          Delete
        </Button>
      </DialogActions>
    </Dialog>
  );
}
