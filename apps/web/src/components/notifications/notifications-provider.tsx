import { lazy, Suspense, useCallback, useState, type ReactNode } from 'react';
import { NotificationsContext, type Notify } from './notifications-context';
import type { ToastMessage } from './toast';

// The snackbar loads with the first message: no page needs it for its first paint.
const Toast = lazy(async () => ({ default: (await import('./toast')).Toast }));

/** The app-wide toast: one at a time, a close button, gone after 3000 ms. */
export function NotificationsProvider({ children }: { children: ReactNode }) {
  const [toast, setToast] = useState<ToastMessage | null>(null);
  const [open, setOpen] = useState(false);

  const notify = useCallback<Notify>((message, severity = 'info') => {
    setToast((previous) => ({ id: (previous?.id ?? 0) + 1, message, severity }));
    setOpen(true);
  }, []);

  return (
    <NotificationsContext.Provider value={notify}>
      {children}
      {toast && (
        <Suspense fallback={null}>
          <Toast
            toast={toast}
            open={open}
            onClose={() => setOpen(false)}
            onExited={() => setToast(null)}
          />
        </Suspense>
      )}
    </NotificationsContext.Provider>
  );
}
