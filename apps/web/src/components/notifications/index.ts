export { NotificationsProvider } from './notifications-provider';
export { useNotify, type Notify, type NotificationSeverity } from './notifications-context';
