import type { SyntheticEvent } from 'react';
import Alert from '@mui/material/Alert';
import Snackbar, { type SnackbarCloseReason } from '@mui/material/Snackbar';
import { LIMITS } from '@trialpulse/shared';
import type { NotificationSeverity } from './notifications-context';

export type ToastMessage = { id: number; message: string; severity: NotificationSeverity };

/** The toast itself: a top-centre snackbar with a filled alert and a close button. */
export function Toast({
  toast,
  open,
  onClose,
  onExited,
}: {
  toast: ToastMessage | null;
  open: boolean;
  onClose: () => void;
  onExited: () => void;
}) {
  const handleClose = (_event?: Event | SyntheticEvent, reason?: SnackbarCloseReason) => {
    // A click elsewhere on the page must not swallow a message the user has not read.
    if (reason === 'clickaway') return;
    onClose();
  };
  return (
    <Snackbar
      key={toast?.id}
      open={open}
      autoHideDuration={LIMITS.notificationDurationMs}
      onClose={handleClose}
      anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
      slotProps={{ transition: { onExited } }}
    >
      {toast ? (
        <Alert
          data-testid="app-toast"
          severity={toast.severity}
          variant="filled"
          onClose={handleClose}
          sx={{ minWidth: 280, alignItems: 'center' }}
        >
          {toast.message}
        </Alert>
      ) : undefined}
    </Snackbar>
  );
}
