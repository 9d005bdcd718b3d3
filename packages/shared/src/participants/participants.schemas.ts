import { z } from 'zod';
import { rowIdSchema } from '../ids';
import { listQuerySchema } from '../paging';
import { EMAIL_MESSAGES } from '../auth/auth.schemas';
import { LIMITS } from '../limits';
import { trialIdSchema } from '../trials/trials.schemas';

/**
 * Participants of a trial (access spec §1 banner, §3 Participant, §4 code edit, §5 age,
 * code suffix, notes, §7 /trialParticipants, /participant, /teamAllowedDevices,
 * /teamSupportedDevices, §8 participant errors). Decision record 0014.
 */

/** The banner on participant dialogs (spec §1). */
export const PHI_BANNER_MESSAGE =
  'Do not enter personal health information. Participant data must be anonymised and de-identified.';

/** Spec §8 texts for participants, plus the field messages of §5. */
export const PARTICIPANT_MESSAGES = {
  codeTaken: 'Participant code is already taken in this trial.',
  updatedButCodeChangeFailed: 'Participant updated but code change failed.',
  codeChangeNotFound: 'Code change failed: participant or trial not found.',
  codeChangeInvalidSuffix: 'Code change failed: invalid suffix.',
  emailTaken:
    'A participant with this email address already exists. Please use a different email address.',
  maxParticipantsReached:
    'Cannot add participant: Your team has reached the maximum number of allowed participants for this trial.',
  network: 'Network error: Please check your internet connection and try again.',
  server: 'Server error: Please try again later. If the problem persists, contact support.',
  validation: 'Please ensure all required fields are filled in correctly.',
  addFailed:
    'Unable to add participant. Please verify all information is correct and try again. Contact support if the issue continues.',
  trialCodeLoadFailed: 'Could not load trial code prefix',
  trialCodeError: 'Error loading trial code',
  editFailed: 'Error: editing participant failed!',
  deleteFailed: 'Error: deleting participant failed!',
  notFound: "Something went wrong! We could not find participant's info.",
  noParticipants: 'No participants found for this trial.',
  phiBanner: PHI_BANNER_MESSAGE,
  // Field messages (spec §5; the digits-only and gender texts are ours).
  ageGreaterThanZero: 'Value must be greater than zero',
  ageMaxDigits: 'Age cannot be more than 3 digits',
  ageDigitsOnly: 'Age must contain digits only',
  genderRequired: 'Gender is required',
  notesTooLong: 'Notes can not be more than 300 characters',
  notesInvalidCharacters: 'Notes contain a character that is not allowed',
  emailInvalid: EMAIL_MESSAGES.invalid,
} as const;

/** "Code change failed: {server message}" (spec §8), for a failed PATCH of the code. */
export const codeChangeFailedMessage = (serverMessage: string) =>
  `Code change failed: ${serverMessage}`;

/** "Validation Error: {message}" (spec §8), for a 400 whose message is displayable. */
export const participantValidationErrorMessage = (message: string) =>
  `Validation Error: ${message}`;

/** Answers of PUT and DELETE /participant (the spec leaves them "not shown"). */
export const PARTICIPANT_SUCCESS = {
  updated: 'The participant has been updated.',
  deleted: 'The participant has been deleted.',
} as const;

export const CODE_SUFFIX_MESSAGE = 'Allowed: digits 0-9 and underscore _ (max 12)';
export const CODE_SUFFIX_PATTERN = /^[0-9_]{1,12}$/;

export const GENDERS = ['female', 'male', 'other', 'none'] as const;
export type Gender = (typeof GENDERS)[number];

/** Participant fields a team may hide (teams.hidden_fields). */
export const PARTICIPANT_HIDEABLE_FIELDS = ['email', 'notes'] as const;

const isBlank = (value: string | null | undefined) =>
  value === null || value === undefined || value === '';

/**
 * The code suffix on add (spec §5): optional, trimmed, upper-cased, digits and underscore
 * only, at most 12. Blank → undefined (the server then assigns the next free number).
 */
export const codeSuffixSchema = z
  .string({ error: CODE_SUFFIX_MESSAGE })
  .trim()
  .toUpperCase()
  .refine((value) => value === '' || CODE_SUFFIX_PATTERN.test(value), CODE_SUFFIX_MESSAGE)
  .nullish()
  .transform((value) => (isBlank(value) ? undefined : (value as string)));

/**
 * Age (spec §5): digits only, greater than zero, at most 3 digits. Accepts the form's text
 * or a number. Output: undefined when omitted (leave unchanged on edit), null when blank
 * (no age), otherwise the number.
 */
export const participantAgeSchema = z
  .union([z.string(), z.number()], { error: PARTICIPANT_MESSAGES.ageDigitsOnly })
  .nullish()
  .transform((value, ctx) => {
    if (value === undefined) return undefined;
    if (value === null) return null;
    const text = String(value).trim();
    if (text === '') return null;
    const fail = (message: string) => {
      ctx.issues.push({ code: 'custom', message, input: value });
      return z.NEVER;
    };
    if (/^[+-]?\d+(\.\d+)?$/.test(text) && Number(text) <= 0)
      return fail(PARTICIPANT_MESSAGES.ageGreaterThanZero);
    if (!/^\d+$/.test(text)) return fail(PARTICIPANT_MESSAGES.ageDigitsOnly);
    if (text.length > LIMITS.ageMaxDigits) return fail(PARTICIPANT_MESSAGES.ageMaxDigits);
    return Number(text);
  });

export const participantGenderSchema = z.enum(GENDERS, {
  error: PARTICIPANT_MESSAGES.genderRequired,
});

/**
 * Notes (≤ 300 after trimming). Output: undefined when omitted (leave unchanged on edit),
 * null when blank (clear), otherwise the trimmed text.
 */
export const participantNotesSchema = z
  .string({ error: PARTICIPANT_MESSAGES.notesTooLong })
  .trim()
  .max(LIMITS.notesMaxLength, PARTICIPANT_MESSAGES.notesTooLong)
  // PostgreSQL text cannot hold NUL; refuse it here rather than fail in the database.
  .refine((value) => !value.includes('\u0000'), PARTICIPANT_MESSAGES.notesInvalidCharacters)
  .nullish()
  .transform((value) => (value === undefined ? undefined : isBlank(value) ? null : value));

/**
 * Optional participant email, stored lower-cased. Output: undefined when omitted (leave
 * unchanged on edit), null when blank (clear), otherwise the address.
 */
export const participantEmailSchema = z
  .string({ error: PARTICIPANT_MESSAGES.emailInvalid })
  .trim()
  .toLowerCase()
  .max(254, PARTICIPANT_MESSAGES.emailInvalid)
  .refine(
    (value) => value === '' || z.email().safeParse(value).success,
    PARTICIPANT_MESSAGES.emailInvalid,
  )
  .nullish()
  .transform((value) => (value === undefined ? undefined : isBlank(value) ? null : value));

/** A participant id: a positive integer or its digits (never `true` or `[1]` coerced to 1). */
export const participantIdSchema = rowIdSchema(PARTICIPANT_MESSAGES.notFound);

const participantFields = {
  email: participantEmailSchema,
  gender: participantGenderSchema,
  age: participantAgeSchema,
  notes: participantNotesSchema,
};

/** POST /trialParticipants. Unknown keys (team, code, counters) are dropped. */
export const addParticipantInputSchema = z.object({
  trialId: trialIdSchema,
  ...participantFields,
  codeSuffix: codeSuffixSchema,
});
export type AddParticipantInput = z.infer<typeof addParticipantInputSchema>;
export type AddParticipantFormValues = z.input<typeof addParticipantInputSchema>;

/**
 * PUT /participant. The code is changed separately (PATCH …/code). An omitted email, age
 * or notes leaves the stored value; blank clears it — except a field the team hides, which
 * only a non-blank value can change.
 */
export const updateParticipantInputSchema = z.object({
  id: participantIdSchema,
  ...participantFields,
});
export type UpdateParticipantInput = z.infer<typeof updateParticipantInputSchema>;
export type UpdateParticipantFormValues = z.input<typeof updateParticipantInputSchema>;

/** PATCH /trialParticipants/{trialId}/{participantId}/code: a suffix is required here. */
export const changeCodeInputSchema = z.object({
  suffix: z
    .string({ error: PARTICIPANT_MESSAGES.codeChangeInvalidSuffix })
    .trim()
    .toUpperCase()
    .regex(CODE_SUFFIX_PATTERN, PARTICIPANT_MESSAGES.codeChangeInvalidSuffix),
});
export type ChangeCodeInput = z.infer<typeof changeCodeInputSchema>;

export const deleteParticipantInputSchema = z.object({ id: participantIdSchema });
export type DeleteParticipantInput = z.infer<typeof deleteParticipantInputSchema>;

/**
 * A participant as the API answers it. `email` is absent when the team hides emails, and
 * `notes` is null when the team hides notes (the server omits them, not just the UI).
 */
export const participantSchema = z.object({
  id: z.number().int(),
  participant_code: z.string(),
  participant_code_suffix: z.string(),
  email: z.string().nullable().optional(),
  gender: z.enum(GENDERS),
  age: z.number().int().nullable(),
  notes: z.string().nullable(),
  trialId: z.number().int(),
  created_at: z.string(),
});
export type Participant = z.infer<typeof participantSchema>;

/**
 * `GET /trialParticipants/{trialId}` paging parameters (decision 0040): the participants
 * table's sortable column ids; the filter searches code, email, gender, age and notes —
 * never a field the team hides (sorting by one answers 400).
 */
export const PARTICIPANT_LIST_SORT_COLUMNS = [
  'participant_code',
  'email',
  'gender',
  'age',
  'notes',
] as const;
export const participantListQuerySchema = listQuerySchema(PARTICIPANT_LIST_SORT_COLUMNS);

/**
 * The stored record (GET /participant/{id}/raw, Sys_Admin only) with the database's
 * column names. Fields the team hides are left out and listed in `hidden_fields`.
 */
export const participantRawSchema = z.object({
  id: z.number().int(),
  team_id: z.number().int(),
  trial_id: z.number().int(),
  participant_code: z.string(),
  participant_code_suffix: z.string(),
  email: z.string().nullable().optional(),
  gender: z.enum(GENDERS),
  age: z.number().int().nullable(),
  notes: z.string().nullable().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  hidden_fields: z.array(z.string()),
});
export type ParticipantRaw = z.infer<typeof participantRawSchema>;

export const addParticipantResponseSchema = z.object({
  participantId: z.number().int(),
  participant_code: z.string(),
  participant_code_suffix: z.string(),
});
export type AddParticipantResponse = z.infer<typeof addParticipantResponseSchema>;

export const changeCodeResponseSchema = z.object({ participant_code: z.string() });
export const trialCodeResponseSchema = z.object({ trial_code: z.string() });

export const DEVICE_BRANDS = ['Fitbit', 'Omron', 'Dexcom'] as const;
export const allowedDeviceSchema = z.object({ brand_name: z.enum(DEVICE_BRANDS) });
export type AllowedDevice = z.infer<typeof allowedDeviceSchema>;

export const supportedDeviceSchema = z.object({
  id: z.number().int(),
  device_name: z.string(),
  global_device_catalog_id: z.number().int(),
  device_type: z.string().nullable(),
});
export type SupportedDevice = z.infer<typeof supportedDeviceSchema>;
