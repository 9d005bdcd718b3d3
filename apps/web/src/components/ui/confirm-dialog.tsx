import type { ReactNode } from 'react';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';

export type ConfirmDialogProps = {
  title: ReactNode;
  /** What the action touches (and any extra controls, e.g. a confirmation checkbox). */
  children: ReactNode;
  /** The confirm button's text ("Delete", "Revoke"). */
  confirmLabel: string;
  onConfirm: () => void;
  onClose: () => void;
  /** While the call runs both buttons are disabled and the dialog does not close. */
  pending: boolean;
  confirmDisabled?: boolean;
  /** A failure stays in the dialog (spec §8). */
  error?: string | null;
  /** Test ids: `<testId>-dialog`, `<testId>-error`, `<testId>-confirm` (or `confirmTestId`). */
  testId: string;
  confirmTestId?: string;
};

/** A small "are you sure?" modal with Cancel and a red confirm button. */
export function ConfirmDialog({
  title,
  children,
  confirmLabel,
  onConfirm,
  onClose,
  pending,
  confirmDisabled = false,
  error,
  testId,
  confirmTestId,
}: ConfirmDialogProps) {
  return (
    <Dialog
      open
      onClose={pending ? undefined : onClose}
      fullWidth
      maxWidth="xs"
      data-testid={`${testId}-dialog`}
    >
      <DialogTitle>{title}</DialogTitle>
      <DialogContent>
        <Stack spacing={2}>
          {children}
          {error && (
            <Alert severity="error" data-testid={`${testId}-error`}>
              {error}
            </Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={pending}>
          Cancel
        </Button>
        <Button
          color="error"
          variant="contained"
          onClick={onConfirm}
          disabled={pending || confirmDisabled}
          data-testid={confirmTestId ?? `${testId}-confirm`}
        >
          {confirmLabel}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
