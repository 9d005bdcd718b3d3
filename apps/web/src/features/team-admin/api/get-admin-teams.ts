import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { BRANDS } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** The full team record (access spec §3) with hidden fields, brands and supported devices. */
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

export const adminTeamsQueryKey = ['admin-teams'] as const;

/** `GET /api/admin/teams` (Sys_Admin): every team with its full record. */
export async function getAdminTeams(): Promise<TeamRecord[]> {
  return z.array(teamRecordSchema).parse(await api.get<unknown>('/admin/teams'));
}

export function useAdminTeams() {
  return useQuery({ queryKey: adminTeamsQueryKey, queryFn: getAdminTeams });
}
