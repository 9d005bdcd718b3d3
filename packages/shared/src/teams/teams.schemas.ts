import { z } from 'zod';
import { DATE_MESSAGES, calendarDateTimeSchema } from '../dates';
import { MAX_ROW_ID, rowIdSchema } from '../ids';
import { ROLES } from '../roles';

/** Team selection and team administration (access spec §3 Team, Team option, Team-user mapping). */

export const teamOptionSchema = z.object({
  team_id: z.number().int(),
  team_name: z.string(),
  role: z.enum(ROLES),
});
export type TeamOption = z.infer<typeof teamOptionSchema>;

/** The role in the body is ignored: the server takes it from the mapping. */
export const selectTeamInputSchema = z.object({
  teamId: rowIdSchema('Team is required'),
  teamName: z.string().max(200).optional(),
  role: z.string().optional(),
});
export type SelectTeamInput = z.infer<typeof selectTeamInputSchema>;

export const TEAM_MESSAGES = {
  nameRequired: 'Team name is required',
  notAMember: 'You are not a member of this team.',
  nameTaken: 'A team with this name already exists.',
  limitNegative: 'Limits can not be negative',
  retentionMin: 'Retention days must be at least 1',
  endsBeforeStart: 'The subscription can not end before it starts',
} as const;

export const HIDEABLE_FIELDS = ['email', 'notes'] as const;
export const BRANDS = ['Fitbit', 'Omron', 'Dexcom'] as const;

// Integer columns: values past PostgreSQL's integer range are refused here, not by the database.
const limit = z.coerce.number().int().min(0, TEAM_MESSAGES.limitNegative).max(MAX_ROW_ID);
// The team dialog's inputs are dates: a refused one says so in the dialog's words.
const optionalDate = calendarDateTimeSchema(DATE_MESSAGES.date).nullable().optional();

/** Every field of the team record an administrator may set (access spec §3, full team record). */
export const teamInputSchema = z
  .object({
    team_name: z
      .string({ error: TEAM_MESSAGES.nameRequired })
      .trim()
      .min(1, TEAM_MESSAGES.nameRequired)
      .max(200),
    is_active: z.boolean().default(true),
    subscription_starts: optionalDate,
    subscription_ends: optionalDate,
    subscription_type: z.string().max(100).nullable().optional(),
    max_users: limit.default(10),
    max_trials: limit.default(10),
    max_participants: limit.default(100),
    team_admin_email: z.email({ error: 'Email is invalid' }).nullable().optional(),
    team_admin_phone: z.string().max(50).nullable().optional(),
    organization: z.string().max(200).nullable().optional(),
    notes: z.string().max(1000).nullable().optional(),
    monthly_rate_per_participant: z.coerce.number().min(0).max(99_999_999.99).nullable().optional(),
    retention_days: z.coerce
      .number()
      .int()
      .min(1, TEAM_MESSAGES.retentionMin)
      .max(MAX_ROW_ID)
      .nullable()
      .optional(),
    storage_location: z.string().max(200).nullable().optional(),
    hidden_fields: z.array(z.enum(HIDEABLE_FIELDS)).default(['email', 'notes']),
    allowed_brands: z.array(z.enum(BRANDS)).default([]),
    /** Ids from the global device catalog this team supports. */
    supported_device_ids: z.array(rowIdSchema()).default([]),
  })
  .refine(
    (team) =>
      !team.subscription_starts ||
      !team.subscription_ends ||
      new Date(team.subscription_starts).getTime() <= new Date(team.subscription_ends).getTime(),
    { message: TEAM_MESSAGES.endsBeforeStart, path: ['subscription_ends'] },
  );
export type TeamInput = z.infer<typeof teamInputSchema>;

/** The full team record (access spec §3) plus hidden fields, allowed brands and supported devices. */
export const teamRecordSchema = z.object({
  team_id: z.number().int(),
  team_name: z.string(),
  is_active: z.boolean(),
  subscription_starts: z.string().nullable(),
  subscription_ends: z.string().nullable(),
  subscription_type: z.string().nullable(),
  max_users: z.number().int().nullable(),
  actual_num_of_users: z.number().int(),
  max_trials: z.number().int().nullable(),
  actual_num_of_trials: z.number().int(),
  max_participants: z.number().int().nullable(),
  actual_num_of_participants: z.number().int(),
  team_admin_email: z.string().nullable(),
  team_admin_phone: z.string().nullable(),
  organization: z.string().nullable(),
  notes: z.string().nullable(),
  monthly_rate_per_participant: z.number().nullable(),
  retention_days: z.number().int().nullable(),
  storage_location: z.string().nullable(),
  hidden_fields: z.array(z.string()),
  allowed_brands: z.array(z.enum(BRANDS)),
  supported_device_ids: z.array(z.number().int()),
});
export type TeamRecord = z.infer<typeof teamRecordSchema>;
