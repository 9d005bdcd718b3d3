import { z } from 'zod';
import { rowIdSchema } from '../ids';
import { EMAIL_MESSAGES, emailSchema } from '../auth/auth.schemas';
import { LIMITS } from '../limits';
import { listQuerySchema } from '../paging';

/** Trials and trial users (access spec §3 Trial / Trial user, §5, §7, §8). */

export const TRIAL_MESSAGES = {
  numberRequired: 'Trial Number is required',
  nameRequired: 'Trial Name is required',
  numberTooLong: 'Trial Number can not be more than 50 characters',
  nameTooLong: 'Trial Name can not be more than 200 characters',
  notesTooLong: 'Notes can not be more than 300 characters',
  addFailed: 'Adding a new trial failed',
  updateFailed: 'Updating trial failed',
  deleteFailed: 'Deleting current trial failed',
  userInfoNotLoaded: 'User info not loaded yet',
  maxTrialsReached:
    'Your team has reached the maximum number of trials allowed by its subscription.',
  teamInactive: "The current team's subscription is no longer active or has expired.",
  hasParticipants:
    'This trial still has participants. Confirm deleting the trial together with its participants, or remove them first.',
  duplicateNumber: 'A trial with this Trial Number already exists in your team.',
  notFound: 'Trial not found.',
} as const;

const trialFields = {
  trialNumber: z
    .string({ error: TRIAL_MESSAGES.numberRequired })
    .trim()
    .min(1, TRIAL_MESSAGES.numberRequired)
    .max(50, TRIAL_MESSAGES.numberTooLong),
  trialName: z
    .string({ error: TRIAL_MESSAGES.nameRequired })
    .trim()
    .min(1, TRIAL_MESSAGES.nameRequired)
    .max(200, TRIAL_MESSAGES.nameTooLong),
  trialNotes: z
    .string()
    .max(LIMITS.notesMaxLength, TRIAL_MESSAGES.notesTooLong)
    .optional()
    .default(''),
};

export const trialIdSchema = rowIdSchema(TRIAL_MESSAGES.notFound);

export const createTrialInputSchema = z.object(trialFields);
export type CreateTrialInput = z.infer<typeof createTrialInputSchema>;

export const updateTrialInputSchema = z.object({ trialId: trialIdSchema, ...trialFields });
export type UpdateTrialInput = z.infer<typeof updateTrialInputSchema>;

/** `cascade: true` confirms deleting a trial that still has participants (decision 0009). */
export const deleteTrialInputSchema = z.object({
  trialId: trialIdSchema,
  cascade: z.boolean().optional().default(false),
});
export type DeleteTrialInput = z.infer<typeof deleteTrialInputSchema>;

export const trialSchema = z.object({
  trialId: z.number().int(),
  trialNumber: z.string(),
  trialName: z.string(),
  trialNotes: z.string(),
  trialOwnerEmail: z.string().nullable(),
  teamId: z.number().int(),
  creationDate: z.string(),
});
export type Trial = z.infer<typeof trialSchema>;

/**
 * `GET /userTrials/` paging parameters (decision 0040): the trials table's sortable column
 * ids; the filter searches the same columns. Without paging parameters: the whole list.
 */
export const TRIAL_LIST_SORT_COLUMNS = [
  'trialNumber',
  'trialName',
  'trialNotes',
  'trialOwnerEmail',
] as const;
export const trialListQuerySchema = listQuerySchema(TRIAL_LIST_SORT_COLUMNS);

export const TRIAL_USER_MESSAGES = {
  addFailed: 'Adding the user to the trial failed!',
  addedDisplayWrong: 'The user has been added, but the display is wrong. Please refresh the page!',
  deleteFailed: 'Deleting user from trial failed',
  deletedDisplayWrong:
    'The user has been deleted, but the display is wrong. Please refresh the page!',
  notFound: 'Something went wrong! We could not find trial and users info.',
  ownerCannotBeRemoved: 'The trial owner cannot be removed from the trial.',
  notInTeam: 'This user is not a member of your team.',
  alreadyInTrial: 'This user is already a user of this trial.',
} as const;

export const addTrialUserInputSchema = z.object({
  userEmail: emailSchema,
  trialId: trialIdSchema,
});
export type AddTrialUserInput = z.infer<typeof addTrialUserInputSchema>;

export const deleteTrialUserInputSchema = z.object({
  userId: rowIdSchema(),
  userEmail: z.string().optional(),
  trialId: trialIdSchema,
});
export type DeleteTrialUserInput = z.infer<typeof deleteTrialUserInputSchema>;

export const trialUserSchema = z.object({
  id: z.number().int(),
  email: z.string(),
  isOwner: z.boolean(),
});
export type TrialUser = z.infer<typeof trialUserSchema>;
export const teamUserOptionSchema = z.object({ id: z.number().int(), email: z.string() });

export { EMAIL_MESSAGES };
