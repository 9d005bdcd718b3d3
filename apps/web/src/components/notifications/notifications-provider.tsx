import { useCallback, useState, type ReactNode, type SyntheticEvent } from 'react';
import Alert from '@mui/material/Alert';
import Snackbar, { type SnackbarCloseReason } from '@mui/material/Snackbar';
import { LIMITS } from '@trialpulse/shared';
import {
  NotificationsContext,
  type Notify,
  type NotificationSeverity,
} from './notifications-context';

type Toast = { id: number; message: string; severity: NotificationSeverity };

/** The app-wide toast: one at a time, a close button, gone after 3000 ms. */
export function NotificationsProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<Toast | null>(null);
  const [open, setOpen] = useState(false);

  const notify = useCallback<Notify>((message, severity = 'info') => {
    setToast((previous) => ({ id: (previous?.id ?? 0) + 1, message, severity }));
    setOpen(true);
  }, []);

  const handleClose = (_event?: Event | SyntheticEvent, reason?: SnackbarCloseReason) => {
    // A click elsewhere on the page must not swallow a message the user has not read.
    if (reason === 'clickaway') return;
    setOpen(false);
  };

  return (
    <NotificationsContext.Provider value={notify}>
      {children}
      <Snackbar
        key={toast?.id}
        open={open}
        autoHideDuration={LIMITS.notificationDurationMs}
        onClose={handleClose}
        anchorOrigin={{ vertical: 'top', horizontal: 'center' }}
        slotProps={{ transition: { onExited: () => setToast(null) } }}
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
    </NotificationsContext.Provider>
  );
}
