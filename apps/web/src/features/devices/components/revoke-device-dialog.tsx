import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { DeviceBrandName } from '@trialpulse/shared';

type RevokeDeviceDialogProps = {
  brand: DeviceBrandName;
  participantCode: string;
  submitting: boolean;
  /** The failure text; the dialog stays open to show it. */
  error: string | null;
  onConfirm: () => void;
  onClose: () => void;
};

/** Asks before revoking a participant's access to a brand. */
export function RevokeDeviceDialog({
  brand,
  participantCode,
  submitting,
  error,
  onConfirm,
  onClose,
}: RevokeDeviceDialogProps) {
  return (
    <Dialog
      open
      onClose={submitting ? undefined : onClose}
      fullWidth
      maxWidth="xs"
      data-testid="revoke-device-dialog"
    >
      <DialogTitle>Revoke {brand} access?</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          <Typography>
            Participant: <strong>{participantCode}</strong>
          </Typography>
          <Typography variant="body2" color="text.secondary">
            No more {brand} data is collected until the participant authorizes again.
          </Typography>
          {error && (
            <Alert severity="error" data-testid="revoke-device-error">
              {error}
            </Alert>
          )}
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
          data-testid="revoke-device-confirm"
        >
          Revoke
        </Button>
      </DialogActions>
    </Dialog>
  );
}
