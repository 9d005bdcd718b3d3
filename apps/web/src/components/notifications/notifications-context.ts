import { createContext, useContext } from 'react';
import type { AlertColor } from '@mui/material/Alert';

export type NotificationSeverity = AlertColor;

/** Shows a toast; a newer toast replaces the one on screen. */
export type Notify = (message: string, severity?: NotificationSeverity) => void;

export const NotificationsContext = createContext<Notify | null>(null);

export function useNotify(): Notify {
  const notify = useContext(NotificationsContext);
  if (!notify) throw new Error('useNotify must be used inside <NotificationsProvider>');
  return notify;
}
