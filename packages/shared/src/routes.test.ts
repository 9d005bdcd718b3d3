import { describe, expect, it } from 'vitest';
import { AUTH_STATUSES } from './auth-status';
import { ROLES, type Role } from './roles';
import { NO_ROLE_MESSAGE, ROUTES, decideRouteAccess, findRoute } from './routes';

/**
 * The spec's route table, written out independently of ROUTES (access spec §2,
 * device-data spec §2), so a wrong entry in ROUTES fails here.
 */
const SPEC_PUBLIC = [
  '/SignupPage',
  '/LoginPage',
  '/ParticipantSignupPage',
  '/ParticipantLoginPage',
  '/Participants',
  '/fitbit-callback',
  '/omron-callback',
  '/dexcom-callback',
  '/PAFitbitConsentPage',
  '/OmronConsentPage',
  '/ResetPwdReqPage',
  '/ResetPasswordPage',
  '/ContactUsForm/',
  '/SignupValidation',
  '/not-authorized',
];
const SPEC_ALL_STAFF = [
  '/SFASetupPage',
  '/SFAVerifyPage',
  '/SFAValidatePage',
  '/SFASendCodeViaMsgPage',
  '/',
  '/UserTeams',
  '/Trials',
  '/TrialPage',
  '/FitbitParticipantDataPage',
  '/ParticipantsDataPage',
  '/FitbitParticipantOverview',
  '/ParticipantsPage',
  '/AddParticipantPage',
  '/FitbitParticipantDataForm',
  '/FitbitParticipant1DayData',
  '/FitbitParticipantsDataPage',
  '/OmronParticipantsDataPage',
  '/OmronParticipantDataPage',
  '/ParticipantDataPage',
  '/ParticipantOverview',
  '/OmronParticipantOverview',
  '/ChangePwdReqPage',
  // Not in the spec: the data completeness page of issue 20 (decision 0050).
  '/TrialCompleteness',
  // Not in the spec: the printable participant report of issue 30 (decision 0165).
  '/ParticipantReport',
];
const SPEC_EDITORS = [
  '/Participant',
  '/FitbitParticipantConsent',
  '/DexcomParticipantConsent',
  '/DataExport',
];
const SPEC_ADMINS = [
  '/FitbitManageParticipantToken',
  '/OmronManageParticipantToken',
  '/TrialUsers',
  '/TeamDataRetention',
  // Not in the spec: the team's backend (pipeline) clients of issue 31 (decision 0240).
  '/TeamBackendClients',
];
const SPEC_SYS_ADMIN = [
  '/SignUpApprovalPage',
  '/ParticipantRaw',
  '/FitbitParticipantDataRaw',
  '/OmronParticipantDataRaw',
  '/DexcomParticipantDataRaw',
  '/DbInfoPage',
  '/DeviceMetricsManager',
];

const MATCHING_SFA_PAGE: Record<string, string> = {
  SFAIsNotSet: '/SFASetupPage',
  SFAVerifyCodeNeeded: '/SFAVerifyPage',
  SFAValidateCodeNeeded: '/SFAValidatePage',
  SFAValidateEmailCodeNeeded: '/SFASendCodeViaMsgPage',
};

/**
 * While the second factor is pending, the matching page is open, plus the pages it links
 * to (setup and validate offer "Send code by email"; the emailed-code page offers the
 * authenticator instead; verify can go back to setup). Decision record 0002.
 */
const OPEN_WHILE_PENDING: Record<string, string[]> = {
  '/SFASetupPage': ['/SFASetupPage', '/SFASendCodeViaMsgPage'],
  '/SFAVerifyPage': ['/SFAVerifyPage', '/SFASetupPage', '/SFASendCodeViaMsgPage'],
  '/SFAValidatePage': ['/SFAValidatePage', '/SFASendCodeViaMsgPage'],
  '/SFASendCodeViaMsgPage': ['/SFASendCodeViaMsgPage', '/SFAValidatePage'],
};

function specRoles(path: string): readonly Role[] | null {
  if (SPEC_PUBLIC.includes(path)) return null;
  if (SPEC_ALL_STAFF.includes(path)) return ROLES;
  if (SPEC_EDITORS.includes(path)) return ['Sys_Admin', 'Admin', 'User'];
  if (SPEC_ADMINS.includes(path)) return ['Sys_Admin', 'Admin'];
  if (SPEC_SYS_ADMIN.includes(path)) return ['Sys_Admin'];
  throw new Error(`${path} is not in the spec's route table`);
}

const ALL_SPEC_PATHS = [
  ...SPEC_PUBLIC,
  ...SPEC_ALL_STAFF,
  ...SPEC_EDITORS,
  ...SPEC_ADMINS,
  ...SPEC_SYS_ADMIN,
];

describe('route table', () => {
  it('has exactly the spec routes, each with the spec roles', () => {
    expect(ROUTES.map((route) => route.path).sort()).toEqual([...ALL_SPEC_PATHS].sort());
    for (const route of ROUTES)
      expect([route.path, route.roles]).toEqual([route.path, specRoles(route.path)]);
  });

  it('ignores a trailing slash but not case', () => {
    expect(findRoute('/ContactUsForm')?.path).toBe('/ContactUsForm/');
    expect(findRoute('/TrialPage/')?.path).toBe('/TrialPage');
    expect(findRoute('/trialpage')).toBeUndefined();
  });
});

describe('route guard: every route × role × second-factor status', () => {
  const statuses = [...AUTH_STATUSES, 'SomethingUnexpected', null];

  it.each(ALL_SPEC_PATHS)('%s', (path) => {
    for (const role of ROLES) for (const status of statuses) expectSpecDecision(path, role, status);
  });

  function expectSpecDecision(path: string, role: Role, status: string | null) {
    const decision = { ...decideRouteAccess(path, { role, authStatus: status }), role, status };
    const allowed = specRoles(path);
    if (allowed === null) {
      expect(decision).toEqual({ kind: 'allow', role, status });
      return;
    }
    if (status !== 'Authorized') {
      // Unknown statuses lead to setup, like SFAIsNotSet.
      const target = MATCHING_SFA_PAGE[status ?? ''] ?? '/SFASetupPage';
      const open = OPEN_WHILE_PENDING[target] ?? [];
      if (open.includes(path)) expect(decision).toEqual({ kind: 'allow', role, status });
      else expect(decision).toEqual({ kind: 'redirect', to: target, role, status });
      return;
    }
    if (role === 'Sys_Admin' || allowed.includes(role))
      expect(decision).toEqual({ kind: 'allow', role, status });
    else expect(decision).toEqual({ kind: 'redirect', to: '/not-authorized', role, status });
  }

  it('sends a signed-out visitor on any protected route to /LoginPage', () => {
    for (const path of ALL_SPEC_PATHS.filter((p) => specRoles(p) !== null)) {
      expect(decideRouteAccess(path, null)).toEqual({ kind: 'redirect', to: '/LoginPage' });
    }
    for (const path of SPEC_PUBLIC)
      expect(decideRouteAccess(path, null)).toEqual({ kind: 'allow' });
  });

  it('sends a Viewer on /DataExport to /not-authorized and lets a Sys_Admin in everywhere', () => {
    expect(decideRouteAccess('/DataExport', { role: 'Viewer', authStatus: 'Authorized' })).toEqual({
      kind: 'redirect',
      to: '/not-authorized',
    });
    for (const path of ALL_SPEC_PATHS) {
      expect(decideRouteAccess(path, { role: 'Sys_Admin', authStatus: 'Authorized' })).toEqual({
        kind: 'allow',
      });
    }
  });

  it('shows the no-role message to a signed-in user without a known role', () => {
    for (const role of [null, undefined, '', 'Owner']) {
      expect(decideRouteAccess('/', { role, authStatus: 'Authorized' })).toEqual({
        kind: 'no-role',
        message: NO_ROLE_MESSAGE,
      });
    }
    expect(NO_ROLE_MESSAGE).toBe('User role is not defined. You do not have access to this page.');
  });

  it('answers not-found for an unknown path, signed in or not', () => {
    expect(decideRouteAccess('/no-such-page', null)).toEqual({ kind: 'not-found' });
    expect(
      decideRouteAccess('/no-such-page', { role: 'Sys_Admin', authStatus: 'Authorized' }),
    ).toEqual({
      kind: 'not-found',
    });
  });

  it('keeps a user whose second factor is pending away from every non-SFA page', () => {
    expect(
      decideRouteAccess('/DbInfoPage', { role: 'Sys_Admin', authStatus: 'SFAValidateCodeNeeded' }),
    ).toEqual({
      kind: 'redirect',
      to: '/SFAValidatePage',
    });
    expect(
      decideRouteAccess('/SFAVerifyPage', { role: 'User', authStatus: 'SFAIsNotSet' }),
    ).toEqual({
      kind: 'redirect',
      to: '/SFASetupPage',
    });
  });
});
