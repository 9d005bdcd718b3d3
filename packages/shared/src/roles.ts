/** Staff roles, highest first. Sys_Admin passes every route guard. */
export const ROLES = ['Sys_Admin', 'Admin', 'User', 'Viewer'] as const;
export type Role = (typeof ROLES)[number];

/* Role groups: the building blocks of the action table (permissions.ts). Code asks
 * `can(role, action)` or guards an action; only the tables and tests name these groups. */
export const ALL_STAFF: readonly Role[] = ROLES;
export const EDITORS: readonly Role[] = ['Sys_Admin', 'Admin', 'User'];
export const ADMINS: readonly Role[] = ['Sys_Admin', 'Admin'];
export const SYS_ADMIN_ONLY: readonly Role[] = ['Sys_Admin'];

/** Roles a sign-up approval may assign (access spec §6). */
export const APPROVABLE_ROLES = ['Viewer', 'User', 'Admin'] as const satisfies readonly Role[];

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}
