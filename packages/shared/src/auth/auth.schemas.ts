import { z } from 'zod';
import { rowIdSchema } from '../ids';
import { AUTH_STATUSES } from '../auth-status';
import { LIMITS } from '../limits';
import { APPROVABLE_ROLES, ROLES } from '../roles';

/**
 * Schemas of the account forms and calls (access spec §5 and §7). The server validates
 * with them and answers 400 with these messages; the web forms use the same schemas.
 */

/** Punctuation accepted as the "special character" (spec: "a fixed set (not shown which)"). */
export const PASSWORD_SPECIAL_CHARACTERS = '!@#$%^&*()-_=+[]{};:\'",.<>/?\\|`~';

export const PASSWORD_MESSAGES = {
  required: 'Password is required',
  tooShort: 'Password can not be less than 8 characters',
  tooLong: 'Password can not be more than 20 characters',
  complexity:
    'Password must have at least One Uppercase, One Lowercase, One Number, and One special character',
  currentRequired: 'Current password is required',
  confirmRequired: 'Please confirm the password',
  changeMismatch: '2 New Passwords must match',
  resetMismatch: 'The 2 Passwords must match',
  signupMismatch: 'Passwords must match',
} as const;

const escapedSpecials = PASSWORD_SPECIAL_CHARACTERS.replace(/[\\\]^-]/g, '\\$&');
const SPECIAL_PATTERN = new RegExp(`[${escapedSpecials}]`);

/** A new password: 8–20 characters with lower, upper, digit and special character. */
export const newPasswordSchema = z
  .string({ error: PASSWORD_MESSAGES.required })
  .min(1, PASSWORD_MESSAGES.required)
  .min(LIMITS.passwordMinLength, PASSWORD_MESSAGES.tooShort)
  .max(LIMITS.passwordMaxLength, PASSWORD_MESSAGES.tooLong)
  .refine(
    (value) =>
      /[a-z]/.test(value) && /[A-Z]/.test(value) && /\d/.test(value) && SPECIAL_PATTERN.test(value),
    PASSWORD_MESSAGES.complexity,
  );

export const EMAIL_MESSAGES = {
  required: 'Email is required',
  invalid: 'Email is invalid',
} as const;

export const emailSchema = z
  .string({ error: EMAIL_MESSAGES.required })
  .trim()
  .min(1, EMAIL_MESSAGES.required)
  .max(254, EMAIL_MESSAGES.invalid)
  .pipe(z.email({ error: EMAIL_MESSAGES.invalid }));

/**
 * The human-check token (reCAPTCHA v3, or the self-hosted proof-of-work payload). Its
 * verification is the server's; the schema only requires it to be present.
 */
export const HUMAN_CHECK_MESSAGE = 'Human verification failed. Please try again.';
export const humanCheckTokenSchema = z
  .string({ error: HUMAN_CHECK_MESSAGE })
  .min(1, HUMAN_CHECK_MESSAGE)
  .max(10_000, HUMAN_CHECK_MESSAGE);

/**
 * "Confirm must match", checked even while other fields are still invalid, so the form
 * shows the mismatch together with the other messages.
 */
function confirmMatches<K extends string, C extends string>(
  passwordKey: K,
  confirmKey: C,
  message: string,
) {
  return [
    (input: Record<K | C, unknown>) => input[passwordKey] === input[confirmKey],
    {
      message,
      path: [confirmKey] as PropertyKey[],
      when: (payload: { value: unknown }) => {
        const value = payload.value as Record<string, unknown> | undefined;
        return typeof value?.[passwordKey] === 'string' && typeof value?.[confirmKey] === 'string';
      },
    },
  ] as [
    (input: Record<K | C, unknown>) => boolean,
    { message: string; path: PropertyKey[]; when: (payload: { value: unknown }) => boolean },
  ];
}

// ---- Login -------------------------------------------------------------------------

export const loginInputSchema = z.object({
  username: z
    .string({ error: 'Username is required' })
    .trim()
    .min(1, 'Username is required')
    .max(254),
  password: z.string({ error: 'Password is required' }).min(1, 'Password is required').max(200),
  recaptchaResponse: humanCheckTokenSchema,
});
export type LoginInput = z.infer<typeof loginInputSchema>;

export const LOGIN_MESSAGES = {
  failed: 'Login failed - Please try again.',
  /*
   * Access spec §8 "Login failed: ...": the reason, when the sign-in failed for a known
   * reason that is not the server's displayable text.
   */
  unreachable:
    'Login failed: the server could not be reached. Please check your connection and try again.',
  serverError: 'Login failed: the server could not complete the sign-in. Please try again later.',
  humanCheck:
    'Login failed: the human check could not be completed. Please reload the page and try again.',
  roleMissing: 'Login error: User role is missing.',
  invalidCredentials: 'Invalid username or password.',
  locked: 'Account locked due to too many failed attempts',
  sessionExpired: 'Your session has expired. Please log in again.',
} as const;

/** The signed-in user as the client sees it (GET /auth/login/, GET /auth/user, login). */
export const sessionUserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  username: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: z.enum(ROLES).nullable(),
  teamId: z.number().int().nullable(),
  team_name: z.string().nullable(),
  teamStatus: z.enum(['Active', 'Inactive']).nullable(),
  hiddenFields: z.array(z.string()),
  authStatus: z.enum(AUTH_STATUSES),
  token_version: z.number().int(),
});
export type SessionUser = z.infer<typeof sessionUserSchema>;

export const loginResponseSchema = z.object({ message: z.string(), user: sessionUserSchema });
export const currentUserResponseSchema = z.object({ message: z.string(), user: sessionUserSchema });

/**
 * `GET /api/auth/session` (not in the spec; decision 0195): whether a staff session is
 * present, always answered 200, so the web app learns "signed out" or "second factor
 * pending" without a 401 or 403 in the browser console. `user` carries the status as the
 * login answer does; the spec's `GET /auth/login/` and `GET /auth/user` keep their 401/403.
 */
export const sessionStatusResponseSchema = z.discriminatedUnion('signedIn', [
  z.object({ signedIn: z.literal(false), user: z.null() }),
  z.object({ signedIn: z.literal(true), user: sessionUserSchema }),
]);
export type SessionStatusResponse = z.infer<typeof sessionStatusResponseSchema>;

// ---- Passwords ----------------------------------------------------------------------

export const changePasswordInputSchema = z
  .object({
    currentPassword: z
      .string({ error: PASSWORD_MESSAGES.currentRequired })
      .min(1, PASSWORD_MESSAGES.currentRequired)
      .max(200),
    newPassword: newPasswordSchema,
    newConfirmPassword: z.string({ error: PASSWORD_MESSAGES.confirmRequired }),
  })
  .refine(...confirmMatches('newPassword', 'newConfirmPassword', PASSWORD_MESSAGES.changeMismatch));
export type ChangePasswordInput = z.infer<typeof changePasswordInputSchema>;

export const forgotPasswordInputSchema = z.object({
  email: emailSchema,
  recaptchaResponse: humanCheckTokenSchema,
});
export type ForgotPasswordInput = z.infer<typeof forgotPasswordInputSchema>;

export const RESET_MESSAGES = {
  missingKey: 'Error: Reset key is missing!',
  success: 'New password set successfully!',
  validationFailed: 'Error: reset password validation failed!',
  resetFailed: 'Error: reset password failed!',
  requestFailed: 'Error:reset password request failed!',
  invalidOrExpired: 'This reset link is invalid or has expired. Please request a new one.',
  requestConfirmation:
    'If an account exists for this email address, a link to reset the password has been sent to it.',
} as const;

export const CHANGE_PASSWORD_MESSAGES = {
  failed: 'Unable to change password. Please try again.',
  wrongCurrent: 'The current password is not correct.',
} as const;

const resetTokenSchema = z
  .string({ error: RESET_MESSAGES.missingKey })
  .min(1, RESET_MESSAGES.missingKey)
  .max(200, RESET_MESSAGES.invalidOrExpired);

export const resetPasswordValidationInputSchema = z.object({ token: resetTokenSchema });
export const resetPasswordInputSchema = z
  .object({
    token: resetTokenSchema,
    newPassword: newPasswordSchema,
    newConfirmPassword: z.string({ error: PASSWORD_MESSAGES.confirmRequired }),
  })
  .refine(...confirmMatches('newPassword', 'newConfirmPassword', PASSWORD_MESSAGES.resetMismatch));
export type ResetPasswordInput = z.infer<typeof resetPasswordInputSchema>;

// ---- Invitations and sign-up -----------------------------------------------------------

export const APPROVAL_MESSAGES = {
  teamRequired: 'Team is required',
  roleRequired: 'Role is required',
  failed: 'Error: sign-up approval failed!',
} as const;

export const approveSignUpInputSchema = z.object({
  email: emailSchema,
  role: z.enum(APPROVABLE_ROLES, { error: APPROVAL_MESSAGES.roleRequired }),
  teamId: rowIdSchema(APPROVAL_MESSAGES.teamRequired),
  teamName: z.string().max(200).optional(),
});
export type ApproveSignUpInput = z.infer<typeof approveSignUpInputSchema>;

export const signupRequestValidationInputSchema = z.object({
  token: z.string().min(1, 'Sign-up key is missing').max(200),
});

export const NAME_MESSAGES = {
  firstRequired: 'First Name is required',
  lastRequired: 'Last name is required',
  firstLength: 'First Name must be between 2 and 50 characters',
  lastLength: 'Last name must be between 2 and 50 characters',
} as const;

const firstNameSchema = z
  .string({ error: NAME_MESSAGES.firstRequired })
  .trim()
  .min(1, NAME_MESSAGES.firstRequired)
  .min(LIMITS.nameMinLength, NAME_MESSAGES.firstLength)
  .max(LIMITS.nameMaxLength, NAME_MESSAGES.firstLength);
const lastNameSchema = z
  .string({ error: NAME_MESSAGES.lastRequired })
  .trim()
  .min(1, NAME_MESSAGES.lastRequired)
  .min(LIMITS.nameMinLength, NAME_MESSAGES.lastLength)
  .max(LIMITS.nameMaxLength, NAME_MESSAGES.lastLength);

export const SIGNUP_MESSAGES = {
  acceptTerms: 'Accept Terms is required',
  acceptPrivacy: 'Accept Privacy Policy is required',
  unsuccessful: 'Signup unsuccessful.',
  failed: 'Signup failed. Please try again.',
  success: 'Signup successful! You can now log in.',
} as const;

/** Staff registration from an invitation link; email doubles as username. */
export const signupInputSchema = z
  .object({
    token: z.string().min(1, 'Sign-up key is missing').max(200),
    username: z.string().optional(),
    email: emailSchema,
    password: newPasswordSchema,
    confirmPassword: z.string({ error: PASSWORD_MESSAGES.confirmRequired }),
    firstName: firstNameSchema,
    lastName: lastNameSchema,
    organization: z.string().trim().max(200).optional().default(''),
    acceptTerms: z.literal(true, { error: SIGNUP_MESSAGES.acceptTerms }),
    acceptPrivacy: z.literal(true, { error: SIGNUP_MESSAGES.acceptPrivacy }),
    recaptchaResponse: humanCheckTokenSchema,
  })
  .refine(...confirmMatches('password', 'confirmPassword', PASSWORD_MESSAGES.signupMismatch));
export type SignupInput = z.infer<typeof signupInputSchema>;

/** Participant self-registration (POST /Participants/signup). */
export const participantSignupInputSchema = z
  .object({
    username: z
      .string({ error: 'Username is required' })
      .trim()
      .min(1, 'Username is required')
      .max(254),
    email: emailSchema,
    password: newPasswordSchema,
    confirmPassword: z.string({ error: PASSWORD_MESSAGES.confirmRequired }),
  })
  .refine(...confirmMatches('password', 'confirmPassword', PASSWORD_MESSAGES.signupMismatch));
export type ParticipantSignupInput = z.infer<typeof participantSignupInputSchema>;

// ---- Contact ---------------------------------------------------------------------------

export const CONTACT_MESSAGES = {
  subjectRequired: 'Subject is required',
  subjectLength: 'Subject must be between 3 and 50 characters',
  messageRequired: 'Message is required',
  messageLength: 'Message must be between 10 and 300 characters',
  tokenFailed: 'Failed to get reCAPTCHA token. Please try again.',
  notSent: 'Message could not be sent!',
  sent: 'Message sent. Thank you!',
} as const;

export const contactInputSchema = z.object({
  firstName: firstNameSchema,
  lastName: lastNameSchema,
  email: emailSchema,
  subject: z
    .string({ error: CONTACT_MESSAGES.subjectRequired })
    .trim()
    .min(1, CONTACT_MESSAGES.subjectRequired)
    .min(LIMITS.subjectMinLength, CONTACT_MESSAGES.subjectLength)
    .max(LIMITS.subjectMaxLength, CONTACT_MESSAGES.subjectLength),
  message: z
    .string({ error: CONTACT_MESSAGES.messageRequired })
    .trim()
    .min(1, CONTACT_MESSAGES.messageRequired)
    .min(LIMITS.contactMessageMinLength, CONTACT_MESSAGES.messageLength)
    .max(LIMITS.contactMessageMaxLength, CONTACT_MESSAGES.messageLength),
  recaptchaResponse: humanCheckTokenSchema,
});
export type ContactInput = z.infer<typeof contactInputSchema>;

// ---- Second factor ---------------------------------------------------------------------

export const SFA_CODE_MESSAGES = {
  required: 'SFA Code is required',
  digits: 'Code must be only digits',
  length: 'Code must be exactly 6 digits',
} as const;

export const sfaCodeSchema = z
  .string({ error: SFA_CODE_MESSAGES.required })
  .min(1, SFA_CODE_MESSAGES.required)
  .regex(/^\d+$/, SFA_CODE_MESSAGES.digits)
  .length(LIMITS.sfaCodeLength, SFA_CODE_MESSAGES.length);

export const validateTotpInputSchema = z.object({
  sfaToken: sfaCodeSchema,
  skipSFA: z.boolean().optional().default(false),
});
export const verifyTotpInputSchema = z.object({ sfaToken: sfaCodeSchema });

/** Participant accounts confirm their email address before they see their studies (decision 0019). */
export const PARTICIPANT_EMAIL_MESSAGES = {
  verificationSent: 'We sent you an email. Open its link to confirm your address.',
  verified: 'Your email address is confirmed. You can now see your studies.',
  verificationInvalid:
    'This confirmation link is invalid or has expired. Sign in to get a new one.',
  pleaseVerify:
    'Please confirm your email address with the link we sent you. Your studies appear here once it is confirmed.',
} as const;

/** `GET /api/Participants/me`. */
export const participantMeSchema = z.object({
  email: z.string(),
  participantCount: z.number().int(),
  emailVerified: z.boolean(),
});
export type ParticipantMe = z.infer<typeof participantMeSchema>;
