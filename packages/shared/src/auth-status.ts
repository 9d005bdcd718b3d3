/** Second-factor statuses of a signed-in user (access spec §4). */
export const AUTH_STATUSES = [
  'Authorized',
  'SFAIsNotSet',
  'SFAVerifyCodeNeeded',
  'SFAValidateCodeNeeded',
  'SFAValidateEmailCodeNeeded',
] as const;
export type AuthStatus = (typeof AUTH_STATUSES)[number];

export const SFA_PAGE_BY_STATUS: Record<Exclude<AuthStatus, 'Authorized'>, string> = {
  SFAIsNotSet: '/SFASetupPage',
  SFAVerifyCodeNeeded: '/SFAVerifyPage',
  SFAValidateCodeNeeded: '/SFAValidatePage',
  SFAValidateEmailCodeNeeded: '/SFASendCodeViaMsgPage',
};

/** The page a status leads to; unknown values lead to setup, as the spec says. */
export function pageForAuthStatus(status: string | null | undefined): string {
  if (status === 'Authorized') return '/';
  if (status && status in SFA_PAGE_BY_STATUS) {
    return SFA_PAGE_BY_STATUS[status as keyof typeof SFA_PAGE_BY_STATUS];
  }
  return SFA_PAGE_BY_STATUS.SFAIsNotSet;
}

export function isAuthStatus(value: unknown): value is AuthStatus {
  return typeof value === 'string' && (AUTH_STATUSES as readonly string[]).includes(value);
}
