/**
 * zod schemas of Omron's /measurement responses, as the facts give them. Used by the
 * simulator's tests; TrialPulse's Omron client can use the same ones.
 */
import { z } from 'zod';

const recordTimes = {
  id: z.number().int().positive(),
  dateTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
  dateTimeLocal: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
  dateTimeUtcOffset: z.string().regex(/^[+-]\d{2}:\d{2}$/),
};

export const omronBloodPressureSchema = z.strictObject({
  ...recordTimes,
  systolic: z.number().int(),
  diastolic: z.number().int(),
  bloodPressureUnits: z.literal('mmHg'),
  pulse: z.number().int(),
  pulseUnits: z.literal('bpm'),
  deviceType: z.string().min(1),
  possibleAfib: z.boolean().optional(),
});

export const omronWeightSchema = z.strictObject({
  ...recordTimes,
  weight: z.number(),
  weightUnits: z.literal('kg'),
  bodyFatPercentage: z.number(),
  bmi: z.number(),
  deviceType: z.string().min(1),
});

export const omronActivitySchema = z.strictObject({
  ...recordTimes,
  steps: z.number().int().nonnegative(),
  aerobicSteps: z.number().int().nonnegative(),
  calories: z.number().int().nonnegative(),
  caloriesUnits: z.literal('kcal'),
  distance: z.number().nonnegative(),
  distanceUnits: z.literal('km'),
  aerobicWalkingTime: z.number().int().nonnegative(),
  aerobicWalkingTimeUnits: z.literal('min'),
  deviceType: z.string().min(1),
  hourlyActivity: z
    .array(
      z.strictObject({
        dateTimeLocal: z.string(),
        steps: z.number().int().nonnegative(),
        aerobicSteps: z.number().int().nonnegative(),
      }),
    )
    .optional(),
});

export const omronMeasurementResponseSchema = z.strictObject({
  status: z.literal(0),
  result: z.strictObject({
    truncated: z.boolean(),
    measurementCount: z.number().int().nonnegative(),
    nextPaginationKey: z.string().nullable(),
    bloodPressure: z.array(omronBloodPressureSchema).optional(),
    weight: z.array(omronWeightSchema).optional(),
    activity: z.array(omronActivitySchema).optional(),
  }),
});

export type OmronMeasurementResponse = z.infer<typeof omronMeasurementResponseSchema>;

/** Error body of the measurement API (a simulator choice; see README). */
export const omronApiErrorSchema = z.strictObject({
  status: z.number().int().positive(),
  message: z.string(),
});
