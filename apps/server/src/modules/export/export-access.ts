import { EDITORS, TRIAL_MESSAGES } from '@trialpulse/shared';
import { AppError } from '../../lib/errors';
import type { AuthContext } from '../auth/session-context';

/**
 * Who may export (device-data spec §2: /DataExport is Sys_Admin, Admin, User). Kept in
 * this one place until the shared access module (`export.create` in the permissions
 * table) is on main; then these two functions give way to `access.requireTeam` /
 * `access.requireTrial`.
 */
export const EXPORT_ROLES = EDITORS;

/** The caller's selected team for an export call; 403 for a Viewer, 403 TEAM_INACTIVE for an inactive team. */
export function requireExportTeam(auth: AuthContext): number {
  if (!auth.role || !EXPORT_ROLES.includes(auth.role)) throw AppError.forbidden();
  if (auth.teamId === null || auth.user.teamStatus !== 'Active') {
    throw AppError.forbidden(TRIAL_MESSAGES.teamInactive, { reason: 'TEAM_INACTIVE' });
  }
  return auth.teamId;
}

/** Admin and Sys_Admin see every trial of the team; a User only the trials they are trial users of (decision 0009). */
export function trialMemberFilter(auth: AuthContext): number | null {
  return auth.role === 'Sys_Admin' || auth.role === 'Admin' ? null : auth.userId;
}
