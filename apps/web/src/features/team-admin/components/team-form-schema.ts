import { z } from 'zod';
import {
  BRANDS,
  HIDEABLE_FIELDS,
  LIMITS,
  teamInputSchema,
  type TeamInput,
} from '@trialpulse/shared';
import type { TeamRecord } from '../api/get-admin-teams';

/**
 * The team dialog's form: every input as the browser gives it (text, date `YYYY-MM-DD`),
 * turned into the shared `teamInputSchema` on submit, so its rules and messages apply.
 * Empty optional fields become `null`; empty limits take the schema's defaults.
 */
export const teamFormSchema = z
  .object({
    team_name: z.string(),
    is_active: z.boolean(),
    subscription_starts: z.string(),
    subscription_ends: z.string(),
    subscription_type: z.string(),
    max_users: z.string(),
    max_trials: z.string(),
    max_participants: z.string(),
    team_admin_email: z.string(),
    team_admin_phone: z.string(),
    organization: z.string(),
    notes: z.string(),
    monthly_rate_per_participant: z.string(),
    retention_days: z.string(),
    storage_location: z.string(),
    hidden_fields: z.array(z.enum(HIDEABLE_FIELDS)),
    allowed_brands: z.array(z.enum(BRANDS)),
    supported_device_ids: z.array(z.number().int()),
  })
  .transform((form, ctx): TeamInput => {
    const parsed = teamInputSchema.safeParse({
      ...form,
      subscription_starts: toIsoDate(form.subscription_starts),
      subscription_ends: toIsoDate(form.subscription_ends),
      subscription_type: orNull(form.subscription_type),
      max_users: orUndefined(form.max_users),
      max_trials: orUndefined(form.max_trials),
      max_participants: orUndefined(form.max_participants),
      team_admin_email: orNull(form.team_admin_email),
      team_admin_phone: orNull(form.team_admin_phone),
      organization: orNull(form.organization),
      notes: orNull(form.notes),
      monthly_rate_per_participant: orNull(form.monthly_rate_per_participant),
      retention_days: orNull(form.retention_days),
      storage_location: orNull(form.storage_location),
    });
    if (parsed.success) return parsed.data;
    // The shared schema's issues keep their field paths, so they show under the inputs.
    for (const issue of parsed.error.issues) {
      ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path });
    }
    return z.NEVER;
  });

export type TeamFormValues = z.input<typeof teamFormSchema>;
export type { TeamInput };

export const NEW_TEAM_VALUES: TeamFormValues = {
  team_name: '',
  is_active: true,
  subscription_starts: '',
  subscription_ends: '',
  subscription_type: '',
  max_users: '10',
  max_trials: '10',
  max_participants: '100',
  team_admin_email: '',
  team_admin_phone: '',
  organization: '',
  notes: '',
  monthly_rate_per_participant: '',
  retention_days: String(LIMITS.defaultRetentionDays),
  storage_location: '',
  hidden_fields: ['email', 'notes'],
  allowed_brands: [],
  supported_device_ids: [],
};

/** The form values showing an existing team. */
export function teamToFormValues(team: TeamRecord): TeamFormValues {
  const text = (value: string | number | null) => (value === null ? '' : String(value));
  return {
    team_name: team.team_name,
    is_active: team.is_active,
    subscription_starts: team.subscription_starts?.slice(0, 10) ?? '',
    subscription_ends: team.subscription_ends?.slice(0, 10) ?? '',
    subscription_type: text(team.subscription_type),
    max_users: text(team.max_users),
    max_trials: text(team.max_trials),
    max_participants: text(team.max_participants),
    team_admin_email: text(team.team_admin_email),
    team_admin_phone: text(team.team_admin_phone),
    organization: text(team.organization),
    notes: text(team.notes),
    monthly_rate_per_participant: text(team.monthly_rate_per_participant),
    retention_days: text(team.retention_days),
    storage_location: text(team.storage_location),
    hidden_fields: team.hidden_fields.filter((field): field is (typeof HIDEABLE_FIELDS)[number] =>
      (HIDEABLE_FIELDS as readonly string[]).includes(field),
    ),
    allowed_brands: [...team.allowed_brands],
    supported_device_ids: [...team.supported_device_ids],
  };
}

function orNull(value: string): string | null {
  const trimmed = value.trim();
  return trimmed === '' ? null : trimmed;
}

function orUndefined(value: string): string | undefined {
  const trimmed = value.trim();
  return trimmed === '' ? undefined : trimmed;
}

/** A date input's `YYYY-MM-DD` as the start of that day in UTC, the schema's ISO form. */
function toIsoDate(value: string): string | null {
  return value ? `${value}T00:00:00.000Z` : null;
}
