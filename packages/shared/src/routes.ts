import { ADMINS, ALL_STAFF, EDITORS, SYS_ADMIN_ONLY, isRole, type Role } from './roles';
import { SFA_PAGE_BY_STATUS, type AuthStatus } from './auth-status';

/**
 * The route table of the access spec §2 and the device-data spec §2: every client route
 * and the roles that may open it. `roles: null` marks a public route. The web router is
 * generated from this table and the server's role checks use the same role lists.
 */
export type RouteEntry = {
  path: string;
  title: string;
  roles: readonly Role[] | null;
};

const pub = (path: string, title: string): RouteEntry => ({ path, title, roles: null });
const staff = (path: string, title: string, roles: readonly Role[]): RouteEntry => ({
  path,
  title,
  roles,
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
  staff('/SFASetupPage', 'Set up second factor', ALL_STAFF),
  staff('/SFAVerifyPage', 'Verify second factor', ALL_STAFF),
  staff('/SFAValidatePage', 'Second factor', ALL_STAFF),
  staff('/SFASendCodeViaMsgPage', 'Code by email', ALL_STAFF),
  staff('/', 'Dashboard', ALL_STAFF),
  staff('/UserTeams', 'My teams', ALL_STAFF),
  staff('/Trials', 'Trials', ALL_STAFF),
  staff('/TrialPage', 'Trial', ALL_STAFF),
  staff('/FitbitParticipantDataPage', 'Fitbit participant data', ALL_STAFF),
  staff('/ParticipantsDataPage', 'Participants data', ALL_STAFF),
  staff('/FitbitParticipantOverview', 'Fitbit participant overview', ALL_STAFF),
  staff('/ParticipantsPage', 'Participants', ALL_STAFF),
  staff('/AddParticipantPage', 'Add participant', ALL_STAFF),
  staff('/FitbitParticipantDataForm', 'Fitbit data form', ALL_STAFF),
  staff('/FitbitParticipant1DayData', 'Fitbit one-day data', ALL_STAFF),
  staff('/FitbitParticipantsDataPage', 'Fitbit participants data', ALL_STAFF),
  // Named in device-data §2 as the Omron sibling of /FitbitParticipantsDataPage; not in the
  // route table, so it gets the same roles as its sibling (docs/decisions/0003).
  staff('/OmronParticipantsDataPage', 'Omron participants data', ALL_STAFF),
  staff('/OmronParticipantDataPage', 'Omron participant data', ALL_STAFF),
  staff('/ParticipantDataPage', 'Participant data', ALL_STAFF),
  staff('/ParticipantOverview', 'Participant overview', ALL_STAFF),
  staff('/OmronParticipantOverview', 'Omron participant overview', ALL_STAFF),
  staff('/ChangePwdReqPage', 'Change password', ALL_STAFF),

  // Sys_Admin, Admin, User
  staff('/Participant', 'Participant', EDITORS),
  staff('/FitbitParticipantConsent', 'Fitbit participant consent', EDITORS),
  staff('/DexcomParticipantConsent', 'Dexcom participant consent', EDITORS),
  staff('/DataExport', 'Data export', EDITORS),

  // Sys_Admin, Admin
  staff('/FitbitManageParticipantToken', 'Fitbit token management', ADMINS),
  staff('/OmronManageParticipantToken', 'Omron token management', ADMINS),
  staff('/TrialUsers', 'Trial users', ADMINS),
  staff('/TeamDataRetention', 'Data Storage & Retention Settings', ADMINS),

  // Sys_Admin only
  staff('/SignUpApprovalPage', 'Sign-up approval', SYS_ADMIN_ONLY),
  staff('/ParticipantRaw', 'Participant raw data', SYS_ADMIN_ONLY),
  staff('/FitbitParticipantDataRaw', 'Fitbit raw data', SYS_ADMIN_ONLY),
  staff('/OmronParticipantDataRaw', 'Omron raw data', SYS_ADMIN_ONLY),
  staff('/DexcomParticipantDataRaw', 'Dexcom raw data', SYS_ADMIN_ONLY),
  staff('/DbInfoPage', 'Sys Director Info Page', SYS_ADMIN_ONLY),
  staff('/DeviceMetricsManager', 'Device Metrics Manager', SYS_ADMIN_ONLY),
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
  deviceMetricsManager: '/DeviceMetricsManager',
  dbInfo: '/DbInfoPage',
  trialPage: '/TrialPage',
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
  if (route.roles === null) return { kind: 'allow' };
  if (!user) return { kind: 'redirect', to: PATHS.login };

  if (user.authStatus !== 'Authorized') {
    const status = (
      user.authStatus && user.authStatus in SFA_PAGES_OPEN_BY_STATUS ? user.authStatus : 'SFAIsNotSet'
    ) as Exclude<AuthStatus, 'Authorized'>;
    const open = SFA_PAGES_OPEN_BY_STATUS[status];
    if (open.includes(route.path)) return { kind: 'allow' };
    return { kind: 'redirect', to: SFA_PAGE_BY_STATUS[status] };
  }

  if (!isRole(user.role)) return { kind: 'no-role', message: NO_ROLE_MESSAGE };
  if (user.role === 'Sys_Admin') return { kind: 'allow' };
  if (route.roles.includes(user.role)) return { kind: 'allow' };
  return { kind: 'redirect', to: PATHS.notAuthorized };
}
