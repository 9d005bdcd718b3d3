import { ADMINS, ALL_STAFF, EDITORS, SYS_ADMIN_ONLY, isRole, type Role } from './roles';

/**
 * Who may do what: every staff action and the roles allowed to do it (access spec §6,
 * device-data spec §6). The server's route guards (`app.requireStaff({ action })`), the
 * access module (`access.requireTrial(auth, trialId, action)`), the route table below and
 * the web's `useCan(action)` all read this one table, so a role change is made here only.
 * Sys_Admin passes every check (spec §6).
 *
 * To add an action: add a key here (`<thing>.<verb>`), then name it in the route guard,
 * the service's access call and the component that shows the button.
 */
export const ACTION_ROLES = {
  /** Signed-in staff pages every role opens: dashboard, teams, second factor, password. */
  'app.use': ALL_STAFF,

  /** List and open the trials one can see (User and Viewer: only their own trials). */
  'trial.view': ALL_STAFF,
  /** See every trial of the team without being its trial user (decision 0009). */
  'trial.viewAll': ADMINS,
  'trial.create': ADMINS,
  'trial.update': EDITORS,
  'trial.delete': ADMINS,
  /** List, add and remove a trial's users. */
  'trialUsers.manage': ADMINS,

  /** Participants of visible trials, the team's allowed brands and supported devices. */
  'participant.view': ALL_STAFF,
  'participant.create': EDITORS,
  /** Edit a participant's fields and change its code suffix. */
  'participant.update': EDITORS,
  'participant.delete': EDITORS,
  /** A participant's stored record (/ParticipantRaw). */
  'participant.viewRaw': SYS_ADMIN_ONLY,

  /**
   * Link a participant's device and look after that link: consent email and page,
   * authorisation with the participant present, token refresh and revoke, device status.
   */
  'device.connect': EDITORS,
  /** Token management pages: every connection of a brand in the team. */
  'deviceToken.manage': ADMINS,
  /** 'View Participant Data' on an errored device entry (access spec §5: Sys_Admin alone). */
  'deviceError.viewData': SYS_ADMIN_ONLY,

  /** Synced device data of visible participants (overview, data pages, charts). */
  'data.view': ALL_STAFF,
  /**
   * Recompute figures from stored readings (the Fitbit weekly summary's POST). A call of the
   * Fitbit data page, which every role opens; it ignores the client's figures and only
   * derives from stored readings what GET shows, so it is a read for access (decision 0132).
   */
  'data.recompute': ALL_STAFF,
  /** Raw synced records as the provider sent them. */
  'data.viewRaw': SYS_ADMIN_ONLY,
  /** Start and download data exports (/DataExport). */
  'export.create': EDITORS,
  /** The team's data storage and retention settings (/TeamDataRetention). */
  'retention.manage': ADMINS,
  /** The device metrics catalogue (/DeviceMetricsManager). */
  'metrics.manage': SYS_ADMIN_ONLY,
  /** The system director's pages (/DbInfoPage) and the navbar's Sys Admin menu. */
  'sysadmin.view': SYS_ADMIN_ONLY,
  /**
   * The navbar's Data Management link: the navbar text lists it under Sys_Admin, the route
   * table lets Admin open /TeamDataRetention too, so both see it (decision 0032).
   */
  'nav.dataManagement': ADMINS,

  /**
   * Data completeness and sync health of visible trials (issue 20): the grid, the trial
   * page's strips, the adherence CSV and one's own digest opt-in.
   */
  'completeness.view': ALL_STAFF,
  /** A trial's completeness thresholds (audited). */
  'completeness.thresholds': ADMINS,

  /**
   * Register, list and revoke the team's SMART Backend Services clients, the pipelines that
   * pull FHIR Bulk Data exports with a signed assertion (issue 31; decision 0240).
   */
  'backendClient.manage': ADMINS,

  /** Approve sign-ups (invitations) and list every team for it. */
  'signup.approve': SYS_ADMIN_ONLY,
  /** Team administration: the team record, allowed brands, supported devices. */
  'team.administer': SYS_ADMIN_ONLY,
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof ACTION_ROLES;

export const ACTIONS = Object.keys(ACTION_ROLES) as Action[];

/** The roles allowed to do `action` (Sys_Admin is always among them). */
export function rolesFor(action: Action): readonly Role[] {
  return ACTION_ROLES[action];
}

/**
 * Whether a staff member with `role` may do `action`. An unknown or missing role may do
 * nothing; Sys_Admin may do everything.
 */
export function can(role: string | null | undefined, action: Action): boolean {
  if (!isRole(role)) return false;
  return role === 'Sys_Admin' || ACTION_ROLES[action].includes(role);
}
