import { z } from 'zod';
import { calendarDateSchema } from '../dates';

/**
 * Data completeness and sync health (issue 20, decisions 0050–0052): a participant × day
 * grid computed from stored readings, per-trial thresholds, the daily alert digest and the
 * adherence CSV.
 */

/** Thresholds of a trial without its own (decision 0050). */
export const COMPLETENESS_DEFAULTS = {
  minWearHours: 10,
  minCgmUsagePercent: 70,
  /** 0: the protocol asks for no blood-pressure readings. */
  minBpReadingsPerDay: 0,
  maxDaysWithoutSync: 3,
} as const;

/** Dexcom CGM readings a full day holds (one every 5 minutes). */
export const CGM_READINGS_PER_DAY = 288;
/** The grid's ranges in days, ending today. */
export const COMPLETENESS_RANGES = [14, 30, 90] as const;
export type CompletenessRange = (typeof COMPLETENESS_RANGES)[number];
/** Days in the trial page's compact strip. */
export const COMPLETENESS_STRIP_DAYS = 14;
/** Most days one adherence CSV may cover. */
export const COMPLETENESS_CSV_MAX_DAYS = 366;

export const COMPLETENESS_MESSAGES = {
  wearHours: 'Wear hours must be a whole number from 0 to 24',
  cgmUsage: 'CGM sensor usage must be a whole number from 0 to 100',
  bpReadings: 'Blood-pressure readings per day must be a whole number from 0 to 24',
  maxDaysWithoutSync: 'Days without sync must be a whole number from 1 to 90',
  range: 'Choose 14, 30 or 90 days',
  csvRange: `Choose a start date on or before the end date, at most ${COMPLETENESS_CSV_MAX_DAYS} days`,
  thresholdsSaved: 'Thresholds saved',
  digestOn: 'You will get the daily alert digest for this trial',
  digestOff: 'You will no longer get the daily alert digest for this trial',
} as const;

const wholeNumber = (min: number, max: number, message: string) =>
  z.coerce.number({ error: message }).int(message).min(min, message).max(max, message);

export const completenessThresholdsSchema = z.object({
  minWearHours: wholeNumber(0, 24, COMPLETENESS_MESSAGES.wearHours),
  minCgmUsagePercent: wholeNumber(0, 100, COMPLETENESS_MESSAGES.cgmUsage),
  minBpReadingsPerDay: wholeNumber(0, 24, COMPLETENESS_MESSAGES.bpReadings),
  maxDaysWithoutSync: wholeNumber(1, 90, COMPLETENESS_MESSAGES.maxDaysWithoutSync),
});
export type CompletenessThresholds = z.infer<typeof completenessThresholdsSchema>;

export const completenessRangeSchema = z.coerce
  .number({ error: COMPLETENESS_MESSAGES.range })
  .refine(
    (days): days is CompletenessRange => (COMPLETENESS_RANGES as readonly number[]).includes(days),
    COMPLETENESS_MESSAGES.range,
  );

/**
 * A day's state against the trial's thresholds: `valid` (every applicable check passes),
 * `partial` (some data, below a threshold), `missing` (a device is connected, no data at
 * all), `in_progress` (today, not yet valid: it cannot be judged before it ends — decision
 * 0111), `none` (no device to expect data from).
 */
export const DAY_STATES = ['valid', 'partial', 'missing', 'in_progress', 'none'] as const;
export type DayState = (typeof DAY_STATES)[number];

/** Why a participant's sync health is in the warning colour. */
export const HEALTH_WARNINGS = [
  'needs_reconsent',
  'battery_empty',
  'battery_low',
  'no_recent_sync',
] as const;
export type HealthWarning = (typeof HEALTH_WARNINGS)[number];

export const HEALTH_WARNING_LABELS: Record<HealthWarning, string> = {
  needs_reconsent: 'Needs re-consent',
  battery_empty: 'Battery empty',
  battery_low: 'Battery low',
  no_recent_sync: 'No recent sync',
};

export const connectionHealthSchema = z.object({
  brand: z.enum(['Fitbit', 'Omron', 'Dexcom']),
  status: z.string(),
  needsReconsent: z.boolean(),
  battery: z.string().nullable(),
  batteryLevel: z.number().nullable(),
  lastSyncAt: z.string().nullable(),
  daysSinceSync: z.number().int().nullable(),
});
export type ConnectionHealth = z.infer<typeof connectionHealthSchema>;

/** One participant's row; the arrays run parallel to the grid's `days`. */
export const completenessRowSchema = z.object({
  participantId: z.number().int(),
  participantCode: z.string(),
  states: z.array(z.enum(DAY_STATES)),
  wearMinutes: z.array(z.number().int()),
  steps: z.array(z.number().nullable()),
  sleepMinutes: z.array(z.number().nullable()),
  bpReadings: z.array(z.number().int()),
  weightReadings: z.array(z.number().int()),
  cgmReadings: z.array(z.number().int()),
  cgmUsagePercent: z.array(z.number().nullable()),
  /** Days with a device to expect data from. */
  expectedDays: z.number().int(),
  validDays: z.number().int(),
  /** validDays ÷ expectedDays in %, null without expected days. */
  validPercent: z.number().nullable(),
  connections: z.array(connectionHealthSchema),
  warnings: z.array(z.enum(HEALTH_WARNINGS)),
  /** Any expected day below a threshold, or a warning. */
  belowThreshold: z.boolean(),
});
export type CompletenessRow = z.infer<typeof completenessRowSchema>;

export const completenessGridSchema = z.object({
  trialId: z.number().int(),
  /** Civil dates (YYYY-MM-DD), oldest first, ending today (UTC). */
  days: z.array(z.string()),
  thresholds: completenessThresholdsSchema,
  canEditThresholds: z.boolean(),
  rows: z.array(completenessRowSchema),
});
export type CompletenessGrid = z.infer<typeof completenessGridSchema>;

export const completenessStripsSchema = z.object({
  days: z.array(z.string()),
  strips: z.array(
    z.object({
      participantId: z.number().int(),
      states: z.array(z.enum(DAY_STATES)),
      warnings: z.array(z.enum(HEALTH_WARNINGS)),
    }),
  ),
});
export type CompletenessStrips = z.infer<typeof completenessStripsSchema>;

export const digestSubscriptionSchema = z.object({ subscribed: z.boolean() });
export type DigestSubscription = z.infer<typeof digestSubscriptionSchema>;

const isoDate = calendarDateSchema();
export const adherenceCsvQuerySchema = z
  .object({ from: isoDate, to: isoDate })
  .refine(({ from, to }) => {
    const days = (Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000;
    return Number.isFinite(days) && days >= 0 && days < COMPLETENESS_CSV_MAX_DAYS;
  }, COMPLETENESS_MESSAGES.csvRange);

/** The adherence CSV's columns, in order. */
export const ADHERENCE_CSV_COLUMNS = [
  'participant_code',
  'date',
  'state',
  'wear_minutes',
  'steps',
  'sleep_recorded',
  'sleep_minutes',
  'bp_readings',
  'weight_readings',
  'cgm_readings',
  'cgm_usage_percent',
] as const;
