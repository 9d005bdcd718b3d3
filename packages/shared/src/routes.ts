import { can, rolesFor, type Action } from './permissions';
import { isRole, type Role } from './roles';
import { SFA_PAGE_BY_STATUS, type AuthStatus } from './auth-status';

/**
 * The route table of the access spec §2 and the device-data spec §2: every client route
 * and the action (permissions.ts) whose roles may open it. `action: null` marks a public
 * route. The web router is generated from this table; the server guards the same actions.
 */
export type RouteEntry = {
  path: string;
  title: string;
  action: Action | null;
  /** The roles of `action` (null: public). */
  roles: readonly Role[] | null;
};

const pub = (path: string, title: string): RouteEntry => ({
  path,
  title,
  action: null,
  roles: null,
});
const staff = (path: string, title: string, action: Action): RouteEntry => ({
  path,
  title,
  action,
  roles: rolesFor(action),
});

export const ROUTES = [
  // Public
  pub('/SignupPage', 'Sign up'),
  pub('/LoginPage', 'Log in'),
  pub('/ParticipantSignupPage', 'Participant sign-up'),
  pub('/ParticipantLoginPage', 'Participant log in'),
  pub('/Participants', 'Participant registration'),
  pub('/fitbit-callback', 'Fitbit authorization'),
  pub('/omron-callback', 'Omron authorization'),
  pub('/dexcom-callback', 'Dexcom authorization'),
  pub('/PAFitbitConsentPage', 'Fitbit consent'),
  pub('/OmronConsentPage', 'Omron consent'),
  pub('/ResetPwdReqPage', 'Reset password request'),
  pub('/ResetPasswordPage', 'Reset password'),
  pub('/ContactUsForm/', 'Contact us'),
  pub('/SignupValidation', 'Sign-up validation'),
  pub('/not-authorized', 'Not authorized'),

  // Every staff role
  staff('/SFASetupPage', 'Set up second factor', 'app.use'),
  staff('/SFAVerifyPage', 'Verify second factor', 'app.use'),
  staff('/SFAValidatePage', 'Second factor', 'app.use'),
  staff('/SFASendCodeViaMsgPage', 'Code by email', 'app.use'),
  staff('/', 'Dashboard', 'app.use'),
  staff('/UserTeams', 'My teams', 'app.use'),
  staff('/Trials', 'Trials', 'trial.view'),
  staff('/TrialPage', 'Trial', 'trial.view'),
  staff('/FitbitParticipantDataPage', 'Fitbit participant data', 'data.view'),
  staff('/ParticipantsDataPage', 'Participants data', 'data.view'),
  staff('/FitbitParticipantOverview', 'Fitbit participant overview', 'data.view'),
  staff('/ParticipantsPage', 'Participants', 'participant.view'),
  staff('/AddParticipantPage', 'Add participant', 'participant.view'),
  staff('/FitbitParticipantDataForm', 'Fitbit data form', 'data.view'),
  staff('/FitbitParticipant1DayData', 'Fitbit one-day data', 'data.view'),
  staff('/FitbitParticipantsDataPage', 'Fitbit participants data', 'data.view'),
  // Named in device-data §2 as the Omron sibling of /FitbitParticipantsDataPage; not in the
  // route table, so it gets the same roles as its sibling (docs/decisions/0003).
  staff('/OmronParticipantsDataPage', 'Omron participants data', 'data.view'),
  staff('/OmronParticipantDataPage', 'Omron participant data', 'data.view'),
  staff('/ParticipantDataPage', 'Participant data', 'data.view'),
  staff('/ParticipantOverview', 'Participant overview', 'data.view'),
  staff('/OmronParticipantOverview', 'Omron participant overview', 'data.view'),
  // Issue 30: not in the spec; the printable report, for whoever may view the data (decision 0165).
  staff('/ParticipantReport', 'Participant report', 'data.view'),
  staff('/ChangePwdReqPage', 'Change password', 'app.use'),
  // Issue 20: not in the spec; every staff role, for the trials they see (decision 0050).
  staff('/TrialCompleteness', 'Data completeness', 'completeness.view'),

  // Sys_Admin, Admin, User
  staff('/Participant', 'Participant', 'participant.update'),
  staff('/FitbitParticipantConsent', 'Fitbit participant consent', 'device.connect'),
  staff('/DexcomParticipantConsent', 'Dexcom participant consent', 'device.connect'),
  staff('/DataExport', 'Data export', 'export.create'),

  // Sys_Admin, Admin
  staff('/FitbitManageParticipantToken', 'Fitbit token management', 'deviceToken.manage'),
  staff('/OmronManageParticipantToken', 'Omron token management', 'deviceToken.manage'),
  staff('/TrialUsers', 'Trial users', 'trialUsers.manage'),
  staff('/TeamDataRetention', 'Data Storage & Retention Settings', 'retention.manage'),
  // Issue 31: not in the spec; the team's SMART Backend Services clients (decision 0240).
  staff('/TeamBackendClients', 'Pipeline Clients', 'backendClient.manage'),

  // Sys_Admin only
  staff('/SignUpApprovalPage', 'Sign-up approval', 'signup.approve'),
  staff('/ParticipantRaw', 'Participant raw data', 'participant.viewRaw'),
  staff('/FitbitParticipantDataRaw', 'Fitbit raw data', 'data.viewRaw'),
  staff('/OmronParticipantDataRaw', 'Omron raw data', 'data.viewRaw'),
  staff('/DexcomParticipantDataRaw', 'Dexcom raw data', 'data.viewRaw'),
  staff('/DbInfoPage', 'Sys Director Info Page', 'sysadmin.view'),
  staff('/DeviceMetricsManager', 'Device Metrics Manager', 'metrics.manage'),
] as const satisfies readonly RouteEntry[];

export type RoutePath = (typeof ROUTES)[number]['path'];

export const PATHS = {
  home: '/',
  login: '/LoginPage',
  notAuthorized: '/not-authorized',
  resetPasswordRequest: '/ResetPwdReqPage',
  contactUs: '/ContactUsForm/',
  changePassword: '/ChangePwdReqPage',
  dataExport: '/DataExport',
  teamDataRetention: '/TeamDataRetention',
  teamBackendClients: '/TeamBackendClients',
  deviceMetricsManager: '/DeviceMetricsManager',
  dbInfo: '/DbInfoPage',
  trialPage: '/TrialPage',
  trialCompleteness: '/TrialCompleteness',
  trialUsers: '/TrialUsers',
  userTeams: '/UserTeams',
} as const satisfies Record<string, RoutePath>;

/** Finds a route by pathname; trailing slashes are ignored, case is significant. */
export function findRoute(pathname: string): RouteEntry | undefined {
  const wanted = normalise(pathname);
  return (ROUTES as readonly RouteEntry[]).find((route) => normalise(route.path) === wanted);
}

function normalise(pathname: string): string {
  const trimmed = pathname.replace(/\/+$/, '');
  return trimmed === '' ? '/' : trimmed;
}

export const NO_ROLE_MESSAGE = 'User role is not defined. You do not have access to this page.';

/**
 * Second-factor pages a user may open while the status is not yet Authorized: the page
 * the status leads to, and the pages that page links to (switch between authenticator and
 * emailed code).
 */
const SFA_PAGES_OPEN_BY_STATUS: Record<Exclude<AuthStatus, 'Authorized'>, readonly string[]> = {
  SFAIsNotSet: ['/SFASetupPage', '/SFASendCodeViaMsgPage'],
  SFAVerifyCodeNeeded: ['/SFAVerifyPage', '/SFASetupPage', '/SFASendCodeViaMsgPage'],
  SFAValidateCodeNeeded: ['/SFAValidatePage', '/SFASendCodeViaMsgPage'],
  SFAValidateEmailCodeNeeded: ['/SFASendCodeViaMsgPage', '/SFAValidatePage'],
};

export type GuardUser = { role: string | null | undefined; authStatus: string | null | undefined };

export type GuardDecision =
  | { kind: 'allow' }
  | { kind: 'redirect'; to: string }
  | { kind: 'no-role'; message: typeof NO_ROLE_MESSAGE }
  | { kind: 'not-found' };

/**
 * The route guard's decision (access spec §2 "Route guard"), in this order:
 * unknown path → not found; public route → allow; signed out → /LoginPage; second factor
 * not done → its page; no role → the no-role message; role not listed → /not-authorized.
 * Sys_Admin passes every role check (never the second factor).
 */
export function decideRouteAccess(pathname: string, user: GuardUser | null): GuardDecision {
  const route = findRoute(pathname);
  if (!route) return { kind: 'not-found' };
  if (route.action === null) return { kind: 'allow' };
  if (!user) return { kind: 'redirect', to: PATHS.login };

  if (user.authStatus !== 'Authorized') {
    const status = (
      user.authStatus && user.authStatus in SFA_PAGES_OPEN_BY_STATUS
        ? user.authStatus
        : 'SFAIsNotSet'
    ) as Exclude<AuthStatus, 'Authorized'>;
    const open = SFA_PAGES_OPEN_BY_STATUS[status];
    if (open.includes(route.path)) return { kind: 'allow' };
    return { kind: 'redirect', to: SFA_PAGE_BY_STATUS[status] };
  }

  if (!isRole(user.role)) return { kind: 'no-role', message: NO_ROLE_MESSAGE };
  if (can(user.role, route.action)) return { kind: 'allow' };
  return { kind: 'redirect', to: PATHS.notAuthorized };
}
