import { Outlet } from 'react-router';
import { useSessionTimers } from '@/lib/session';

/** The root route: runs the session timers (they navigate, so they live in the router). */
export function SessionRoot() {
  useSessionTimers();
  return <Outlet />;
}
