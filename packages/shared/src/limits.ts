/** Business constants from both spec documents (§9). Times in milliseconds. */
export const LIMITS = {
  tokenRefreshIntervalMs: 720_000,
  sessionPollIntervalMs: 30_000,
  deviceStatusRefreshMs: 300_000,
  deviceStatusGapMs: 100,
  rememberDeviceHours: 48,
  sfaCodeLength: 6,
  passwordMinLength: 8,
  passwordMaxLength: 20,
  notesMaxLength: 300,
  contactMessageMaxLength: 300,
  contactMessageMinLength: 10,
  nameMinLength: 2,
  nameMaxLength: 50,
  subjectMinLength: 3,
  subjectMaxLength: 50,
  codeSuffixMaxLength: 12,
  ageMaxDigits: 3,
  tablePageSizes: [10, 20, 30, 40, 50] as const,
  tableDefaultPageSize: 10,
  sysAdminTablePageSize: 50,
  filterDebounceMs: 200,
  multiRowSelectionCap: 10,
  olderParticipantsTableSelectionCap: 4,
  fitbitRowSelectionCap: 4,
  notificationDurationMs: 3000,
  contactSuccessClearMs: 5000,
  tooltipHideMs: 5000,
  signupRedirectMs: 1500,
  humanCheckLoadTimeoutMs: 8000,
  savedTableStateMaxPage: 10_000,
  savedTableStateMaxFilterLength: 1000,
  exportMaxRangeDays: 366,
  exportFileRetentionDays: 7,
  exportJobsListLimit: 10,
  exportJobsPollMs: 10_000,
  defaultRetentionDays: 30,
  minRetentionDays: 1,
  /** Our own upper bound (100 years), so a typo cannot overflow the column. */
  maxRetentionDays: 36_500,
  changesSavedMs: 3000,
  sidebarWidth: 320,
} as const;

/** Security thresholds of our own (security checklist). */
export const SECURITY = {
  lockoutMaxFailures: 5,
  lockoutWindowMs: 15 * 60_000,
  lockoutDurationMs: 15 * 60_000,
  accessTokenTtlSeconds: 15 * 60,
  idleTimeoutMs: 30 * 60_000,
  absoluteSessionLifetimeMs: 12 * 60 * 60_000,
  emailCodeTtlMs: 10 * 60_000,
  emailCodeMaxTries: 5,
  /**
   * A just-rotated refresh token presented again within this time (a second tab refreshing
   * at the same moment) gets the same new refresh token instead of revoking the session.
   */
  refreshReuseGraceMs: 30_000,
} as const;

export const PRODUCT_NAME = 'TrialPulse';
