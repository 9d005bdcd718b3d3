import { SFA_PAGE_BY_STATUS } from '@trialpulse/shared';

/** The four second-factor pages (the shared table keys them by auth status). */
export const SFA_PATHS = {
  setup: SFA_PAGE_BY_STATUS.SFAIsNotSet,
  verify: SFA_PAGE_BY_STATUS.SFAVerifyCodeNeeded,
  validate: SFA_PAGE_BY_STATUS.SFAValidateCodeNeeded,
  sendCode: SFA_PAGE_BY_STATUS.SFAValidateEmailCodeNeeded,
} as const;

/** Texts of access spec §8 (second factor) and the notices of these pages. */
export const SFA_TEXT = {
  invalidQr: 'Error: Invalid QR code received from server',
  invalidKey: 'Error: Invalid SFA key received from server.',
  validateFailed: 'Error: validating sfa token request failed!',
  sendEmailFailed: 'Sending code by email failed!',
  /** The special answer of `generateSendEmailTOTP` for a session already Authorized. */
  alreadyValidated: 'SFA already validated',
  codeSent: 'A code was sent to your email address',
  setupComplete: 'Your authenticator is set up. Please log in again.',
  rememberDevice: 'Remember this device for 48 hours',
} as const;
