import { can, type Action } from '@trialpulse/shared';
import { useSession } from './session-context';

/**
 * Whether the signed-in user's role may do `action` (the permissions table in
 * `@trialpulse/shared`, the same one the server's guards use). For showing or hiding a
 * button or link: the server refuses the call anyway.
 */
export function useCan(action: Action): boolean {
  const { user } = useSession();
  return can(user?.role, action);
}
