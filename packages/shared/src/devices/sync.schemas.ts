import { z } from 'zod';

/** Where a connection's device-data sync stands (issue 15; decision 0036). */
export const SYNC_STATES = [
  'not_synced',
  'backfilling',
  'up_to_date',
  'backing_off',
  'needs_reconsent',
  'error',
] as const;
export type SyncState = (typeof SYNC_STATES)[number];

export const syncMetricStatsSchema = z.object({
  metricKey: z.string(),
  rows: z.number().int(),
  earliest: z.string().nullable(),
  latest: z.string().nullable(),
});

export const connectionSyncStatusSchema = z.object({
  participantId: z.number().int(),
  brand: z.enum(['Fitbit', 'Omron', 'Dexcom']),
  upstream: z.string(),
  state: z.enum(SYNC_STATES),
  /** 0–100 while backfilling, else null. */
  backfillPercent: z.number().int().min(0).max(100).nullable(),
  backoffUntil: z.string().nullable(),
  /** The spec's device error type of the last run that failed (rate_limit, auth_error, …). */
  errorType: z.string().nullable(),
  lastSyncAt: z.string().nullable(),
  earliestReading: z.string().nullable(),
  latestReading: z.string().nullable(),
  rowsStored: z.number().int(),
  metrics: z.array(syncMetricStatsSchema),
  /**
   * When the scheduler next syncs the connection (its next tick, or the first after a
   * back-off); null when no sync will run until the participant consents again (decision 0191).
   */
  nextSyncAt: z.string().nullable(),
  /** The metrics the team stores from this connection (enabled in both layers). */
  enabledMetrics: z.array(z.string()),
});
export type ConnectionSyncStatus = z.infer<typeof connectionSyncStatusSchema>;

export const participantSyncStatusResponseSchema = z.object({
  connections: z.array(connectionSyncStatusSchema),
});

export const trialLastDataResponseSchema = z.object({
  participants: z.array(
    z.object({ participantId: z.number().int(), latestReading: z.string().nullable() }),
  ),
});
export type TrialLastData = z.infer<typeof trialLastDataResponseSchema>;

/** What staff read for each sync state. */
export function syncStateLabel(
  status: Pick<ConnectionSyncStatus, 'state' | 'backfillPercent' | 'backoffUntil' | 'errorType'>,
): string {
  switch (status.state) {
    case 'not_synced':
      return 'Not synced yet';
    case 'backfilling':
      return `Backfilling ${status.backfillPercent ?? 0} %`;
    case 'up_to_date':
      return 'Up to date';
    case 'backing_off':
      return status.backoffUntil
        ? `Backing off until ${new Date(status.backoffUntil).toLocaleString()}`
        : 'Backing off';
    case 'needs_reconsent':
      return 'Needs re-consent';
    case 'error':
      return `Sync error: ${status.errorType ?? 'processing_error'}`;
  }
}

/** "Last data today", "Last data 1 day ago", "Last data 5 days ago", or "No data yet". */
export function lastDataLabel(latest: string | null, now: Date = new Date()): string {
  if (!latest) return 'No data yet';
  const days = Math.floor((now.getTime() - new Date(latest).getTime()) / 86_400_000);
  if (days <= 0) return 'Last data today';
  return days === 1 ? 'Last data 1 day ago' : `Last data ${days} days ago`;
}

/** The Fitbit weekly summary (device-data spec §3), computed by the server from stored readings. */
export const fitbitWeeklySummarySchema = z.object({
  participant_id: z.number().int(),
  avrg_resting_heart_rate_last_7days: z.number().nullable(),
  avrg_resting_heart_rate_prev_7days: z.number().nullable(),
  avrg_sleep_duration_last_7days: z.number().nullable(),
  avrg_sleep_duration_prev_7days: z.number().nullable(),
  total_steps_last_7days: z.number().nullable(),
  total_steps_prev_7days: z.number().nullable(),
  total_distance_last_7days: z.number().nullable(),
  total_distance_prev_7days: z.number().nullable(),
  total_floors_last_7days: z.number().nullable(),
  total_floors_prev_7days: z.number().nullable(),
  avrg_weight_last_7days: z.number().nullable(),
  avrg_weight_prev_7days: z.number().nullable(),
  updated_at: z.string().nullable(),
  /**
   * The days the figures cover (decision 0180): the participant's last 7 complete local
   * days and the 7 before, `YYYY-MM-DD`, both ends included. Not in the spec's answer.
   */
  last_7days_start: z.string().optional(),
  last_7days_end: z.string().optional(),
  prev_7days_start: z.string().optional(),
  prev_7days_end: z.string().optional(),
});
export type FitbitWeeklySummary = z.infer<typeof fitbitWeeklySummarySchema>;

/** POST body of the spec (`{email, data}`): accepted and ignored; the server computes the figures. */
export const fitbitWeeklySummaryPostSchema = z
  .object({ email: z.string().max(320).optional(), data: z.unknown().optional() })
  .loose();
