/**
 * zod schemas of Dexcom API v3 responses, as the facts give them. Used by the simulator's
 * tests; TrialPulse's Dexcom client can use the same ones.
 */
import { z } from 'zod';

const systemTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
/** Phone apps add the UTC offset; receivers do not. */
const displayTime = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}([+-]\d{2}:\d{2})?$/);
const displayDevice = z.enum([
  'iOS',
  'android',
  'receiver',
  'shareReceiver',
  'touchscreenReceiver',
  'unknown',
]);
const transmitterGeneration = z.enum([
  'unknown',
  'g4',
  'g5',
  'g6',
  'g6+',
  'dexcomPro',
  'g7',
  'g715day',
  'g6 pro',
]);
const transmitterId = z
  .string()
  .regex(/^[0-9a-f]{64}$/)
  .nullable();

export const dexcomEgvSchema = z.strictObject({
  recordId: z.uuid(),
  systemTime,
  displayTime,
  transmitterId,
  transmitterTicks: z.number().int().nonnegative(),
  value: z.number().int().nullable(),
  status: z.enum(['unknown', 'high', 'low', 'ok']).nullable(),
  trend: z.enum([
    'none',
    'unknown',
    'doubleUp',
    'singleUp',
    'fortyFiveUp',
    'flat',
    'fortyFiveDown',
    'singleDown',
    'doubleDown',
    'notComputable',
    'rateOutOfRange',
  ]),
  trendRate: z.number().nullable(),
  unit: z.enum(['unknown', 'mg/dL', 'mmol/L']),
  rateUnit: z.enum(['unknown', 'mg/dL/min', 'mmol/L/min']),
  displayDevice,
  transmitterGeneration,
});

export const dexcomEventSchema = z.strictObject({
  recordId: z.uuid(),
  systemTime,
  displayTime,
  eventStatus: z.enum(['created', 'updated', 'deleted']),
  eventType: z.enum(['insulin', 'carbs', 'exercise', 'health', 'bloodGlucose', 'notes', 'unknown']),
  eventSubType: z
    .enum([
      'fastActing',
      'longActing',
      'light',
      'medium',
      'heavy',
      'illness',
      'stress',
      'highSymptoms',
      'lowSymptoms',
      'cycle',
      'alcohol',
    ])
    .nullable(),
  unit: z.enum(['units', 'grams', 'minutes', 'mg/dL', 'mmol/L']).nullable(),
  value: z.string().nullable(),
  transmitterId,
  transmitterGeneration,
  displayDevice,
});

export const dexcomCalibrationSchema = z.strictObject({
  recordId: z.uuid(),
  systemTime,
  displayTime,
  unit: z.enum(['mg/dL', 'mmol/L']),
  value: z.number().int(),
  transmitterId,
  transmitterTicks: z.number().int().nonnegative(),
  transmitterGeneration,
  displayDevice,
});

export const dexcomAlertSchema = z.strictObject({
  recordId: z.uuid(),
  systemTime,
  displayTime,
  alertName: z.enum([
    'high',
    'low',
    'rise',
    'fall',
    'outOfRange',
    'urgentLow',
    'urgentLowSoon',
    'noReadings',
    'fixedLow',
    'unknown',
  ]),
  alertState: z.enum(['inactive', 'activeSnoozed', 'activeAlarming', 'unknown']),
  transmitterId,
  transmitterGeneration,
  displayDevice,
  displayApp: z.enum(['G5', 'G6', 'G7', 'receiver', 'Watch', 'unknown']),
});

const alertSettingSchema = z.strictObject({
  systemTime,
  displayTime,
  alertName: dexcomAlertSchema.shape.alertName,
  unit: z.enum(['mg/dL', 'mg/dL/min', 'minutes', 'mmol/L', 'mmol/L/min', 'unknown']),
  value: z.number(),
  snooze: z.number().int(),
  enabled: z.boolean(),
  delay: z.number().int(),
  secondaryTriggerCondition: z.number().int(),
  soundTheme: z.enum(['unknown', 'modern', 'classic']),
  soundOutputMode: z.enum(['unknown', 'sound', 'vibrate', 'match']),
});

export const dexcomDeviceSchema = z.strictObject({
  lastUploadDate: systemTime,
  transmitterId,
  transmitterGeneration,
  displayDevice,
  displayApp: dexcomAlertSchema.shape.displayApp,
  alertSchedules: z.array(
    z.strictObject({
      alertScheduleSettings: z.strictObject({
        alertScheduleName: z.string(),
        isEnabled: z.boolean(),
        isDefaultSchedule: z.boolean(),
        startTime: z.string().regex(/^\d{2}:\d{2}$/),
        endTime: z.string().regex(/^\d{2}:\d{2}$/),
        daysOfWeek: z.array(
          z.enum(['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']),
        ),
        isActive: z.boolean(),
        override: z.strictObject({
          isOverrideEnabled: z.boolean(),
          mode: z.enum(['unknown', 'quiet', 'vibrate']),
          endTime: z.string(),
        }),
      }),
      alertSettings: z.array(alertSettingSchema).min(1),
    }),
  ),
});

/** The v3 list envelope: `{recordType, recordVersion:"3.0", userId (64 hex), records}`. */
export function dexcomListSchema<T extends z.ZodType>(recordType: string, record: T) {
  return z.strictObject({
    recordType: z.literal(recordType),
    recordVersion: z.literal('3.0'),
    userId: z.string().regex(/^[0-9a-f]{64}$/),
    records: z.array(record),
  });
}

const moment = z.strictObject({ systemTime, displayTime });
const range = z.strictObject({ start: moment, end: moment });

export const dexcomDataRangeSchema = z.strictObject({
  recordType: z.literal('dataRange'),
  recordVersion: z.literal('3.0'),
  userId: z.string().regex(/^[0-9a-f]{64}$/),
  calibrations: range,
  egvs: range,
  events: range,
});

export const dexcomTokenSchema = z.strictObject({
  access_token: z.string().min(1),
  expires_in: z.literal(7200),
  token_type: z.literal('Bearer'),
  refresh_token: z.string().min(1),
});

export const dexcomErrorSchema = z.strictObject({
  error: z.string(),
  error_description: z.string(),
});
