import Typography from '@mui/material/Typography';
import type { DeviceBrandName } from '@trialpulse/shared';
import { ConfirmDialog } from '@/components/ui/confirm-dialog';

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
    <ConfirmDialog
      title={`Revoke ${brand} access?`}
      confirmLabel="Revoke"
      onConfirm={onConfirm}
      onClose={onClose}
      pending={submitting}
      error={error}
      testId="revoke-device"
    >
      <Typography>
        Participant: <strong>{participantCode}</strong>
      </Typography>
      <Typography variant="body2" color="text.secondary">
        No more {brand} data is collected until the participant authorizes again.
      </Typography>
    </ConfirmDialog>
  );
}
