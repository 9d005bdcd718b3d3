import { z } from 'zod';

/**
 * The legacy Fitbit Web API's answer shapes (provider-apis §1.5) that
 * getFitbitServerParticipantData returns, whichever upstream or store answered.
 */

/** One day of an activity series: values are strings, as Fitbit sends them. */
export const fitbitSeriesEntrySchema = z.object({
  dateTime: z.string(),
  value: z.string(),
});
export type FitbitSeriesEntry = z.infer<typeof fitbitSeriesEntrySchema>;

/** `{"activities-steps":[{dateTime,value}]}`; the key is `activities-` + resource. */
export const fitbitActivitySeriesResponseSchema = z.record(
  z.string().regex(/^activities-(tracker-)?[a-zA-Z]+$/),
  z.array(fitbitSeriesEntrySchema),
);
export type FitbitActivitySeriesResponse = z.infer<typeof fitbitActivitySeriesResponseSchema>;

/** Intraday: `{"activities-steps":[…], "activities-steps-intraday":{dataset,datasetInterval,datasetType}}`. */
export const fitbitIntradayDatasetSchema = z.object({
  dataset: z.array(z.object({ time: z.string(), value: z.number() })),
  datasetInterval: z.number(),
  datasetType: z.string(),
});
export type FitbitIntradayDataset = z.infer<typeof fitbitIntradayDatasetSchema>;

/** One heart-rate zone; Fitbit's names: 'Out of Range', 'Fat Burn', 'Cardio', 'Peak'. */
export const fitbitHeartZoneSchema = z.object({
  caloriesOut: z.number().optional(),
  max: z.number(),
  min: z.number(),
  minutes: z.number(),
  name: z.string(),
});
export type FitbitHeartZone = z.infer<typeof fitbitHeartZoneSchema>;

/** `{"activities-heart":[{dateTime,value:{customHeartRateZones,heartRateZones,restingHeartRate?}}]}`. */
export const fitbitHeartSeriesResponseSchema = z.object({
  'activities-heart': z.array(
    z.object({
      dateTime: z.string(),
      value: z.object({
        customHeartRateZones: z.array(fitbitHeartZoneSchema),
        heartRateZones: z.array(fitbitHeartZoneSchema),
        restingHeartRate: z.number().optional(),
      }),
    }),
  ),
});
export type FitbitHeartSeriesResponse = z.infer<typeof fitbitHeartSeriesResponseSchema>;

/** Heart intraday: the zones sit on the entry itself and `value` is the resting rate ("0" if none). */
export const fitbitHeartIntradayResponseSchema = z.object({
  'activities-heart': z.array(
    z.object({
      customHeartRateZones: z.array(fitbitHeartZoneSchema),
      dateTime: z.string(),
      heartRateZones: z.array(fitbitHeartZoneSchema),
      value: z.string(),
    }),
  ),
  'activities-heart-intraday': fitbitIntradayDatasetSchema,
});
export type FitbitHeartIntradayResponse = z.infer<typeof fitbitHeartIntradayResponseSchema>;

/** A weight log (kg); `bmi` only when the upstream knows it, `fat` only when measured. */
export const fitbitWeightLogSchema = z.object({
  bmi: z.number().optional(),
  date: z.string(),
  fat: z.number().optional(),
  logId: z.number(),
  source: z.string(),
  time: z.string(),
  weight: z.number(),
});
export const fitbitWeightResponseSchema = z.object({ weight: z.array(fitbitWeightLogSchema) });
export type FitbitWeightResponse = z.infer<typeof fitbitWeightResponseSchema>;
export const fitbitFatLogSchema = z.object({
  date: z.string(),
  fat: z.number(),
  logId: z.number(),
  source: z.string(),
  time: z.string(),
});
export const fitbitFatResponseSchema = z.object({ fat: z.array(fitbitFatLogSchema) });
export type FitbitFatResponse = z.infer<typeof fitbitFatResponseSchema>;

const sleepLevelEntrySchema = z.object({
  dateTime: z.string(),
  level: z.string(),
  seconds: z.number(),
});
const sleepLevelSummarySchema = z.object({
  count: z.number(),
  minutes: z.number(),
  thirtyDayAvgMinutes: z.number().optional(),
});

/** A sleep log of the v1.2 API: stages (deep/light/rem/wake) or classic (asleep/restless/awake). */
export const fitbitSleepLogSchema = z.object({
  dateOfSleep: z.string(),
  duration: z.number(),
  efficiency: z.number(),
  endTime: z.string(),
  infoCode: z.number(),
  isMainSleep: z.boolean(),
  levels: z.object({
    data: z.array(sleepLevelEntrySchema),
    shortData: z.array(sleepLevelEntrySchema).optional(),
    summary: z.record(z.string(), sleepLevelSummarySchema),
  }),
  logId: z.number(),
  logType: z.string(),
  minutesAfterWakeup: z.number(),
  minutesAsleep: z.number(),
  minutesAwake: z.number(),
  minutesToFallAsleep: z.number(),
  startTime: z.string(),
  timeInBed: z.number(),
  type: z.enum(['stages', 'classic']),
});
export type FitbitSleepLog = z.infer<typeof fitbitSleepLogSchema>;

/** `{"sleep":[…], "summary"?:{…}}`; the summary comes with the one-date call only. */
export const fitbitSleepResponseSchema = z.object({
  sleep: z.array(fitbitSleepLogSchema),
  summary: z
    .object({
      stages: z.record(z.string(), z.number()).optional(),
      totalMinutesAsleep: z.number(),
      totalSleepRecords: z.number(),
      totalTimeInBed: z.number(),
    })
    .optional(),
});
export type FitbitSleepResponse = z.infer<typeof fitbitSleepResponseSchema>;

/** SpO2 of one night: the one-date call answers the object (or `{}`), a range an array. */
export const fitbitSpo2DaySchema = z.object({
  dateTime: z.string(),
  value: z.object({ avg: z.number(), min: z.number(), max: z.number() }),
});
export const fitbitSpo2ResponseSchema = z.union([
  z.array(fitbitSpo2DaySchema),
  fitbitSpo2DaySchema,
  z.object({}).strict(),
]);
export type FitbitSpo2Response = z.infer<typeof fitbitSpo2ResponseSchema>;

/** `{"cardioScore":[{dateTime,value:{vo2Max:"46"|"42-46"}}]}`. */
export const fitbitCardioScoreResponseSchema = z.object({
  cardioScore: z.array(z.object({ dateTime: z.string(), value: z.object({ vo2Max: z.string() }) })),
});
export type FitbitCardioScoreResponse = z.infer<typeof fitbitCardioScoreResponseSchema>;

/** `foods/log/date/{date}`: the day's food logs and totals. */
export const fitbitFoodLogResponseSchema = z.object({
  foods: z.array(
    z
      .object({
        isFavorite: z.boolean(),
        logDate: z.string(),
        logId: z.number(),
        loggedFood: z
          .object({
            amount: z.number(),
            calories: z.number(),
            mealTypeId: z.number(),
            name: z.string(),
            unit: z
              .object({ id: z.number().optional(), name: z.string(), plural: z.string() })
              .passthrough()
              .optional(),
          })
          .passthrough(),
        nutritionalValues: z.record(z.string(), z.number()).optional(),
      })
      .passthrough(),
  ),
  goals: z.record(z.string(), z.number()).optional(),
  summary: z.record(z.string(), z.number()),
});
export type FitbitFoodLogResponse = z.infer<typeof fitbitFoodLogResponseSchema>;

/** `{"foods-log-caloriesIn":[{dateTime,value}]}` / `foods-log-water`. */
export const fitbitFoodSeriesResponseSchema = z.record(
  z.string().regex(/^foods-log-(caloriesIn|water)$/),
  z.array(fitbitSeriesEntrySchema),
);

/** Fitbit's pagination of the log lists (provider-apis §1.8, §1.13). */
const fitbitPaginationSchema = z
  .object({
    afterDate: z.string().optional(),
    beforeDate: z.string().optional(),
    limit: z.number(),
    next: z.string(),
    offset: z.number(),
    previous: z.string(),
    sort: z.string(),
  })
  .passthrough();

/** `activities/list.json`: activity (exercise) logs and Fitbit's pagination. */
export const fitbitActivityLogListResponseSchema = z.object({
  activities: z.array(
    z
      .object({
        activeDuration: z.number(),
        activityName: z.string(),
        averageHeartRate: z.number().optional(),
        calories: z.number(),
        distance: z.number().optional(),
        duration: z.number(),
        logId: z.number(),
        logType: z.string(),
        startTime: z.string(),
        steps: z.number().optional(),
      })
      .passthrough(),
  ),
  pagination: fitbitPaginationSchema,
});
export type FitbitActivityLogListResponse = z.infer<typeof fitbitActivityLogListResponseSchema>;

/** `sleep/list.json` (v1.2): sleep logs and the same pagination. */
export const fitbitSleepListResponseSchema = z.object({
  sleep: fitbitSleepResponseSchema.shape.sleep,
  pagination: fitbitPaginationSchema,
});
export type FitbitSleepListResponse = z.infer<typeof fitbitSleepListResponseSchema>;

/** Any answer of getFitbitServerParticipantData (the route's response schema). */
export const fitbitDataResponseSchema = z.union([
  z.record(z.string(), z.unknown()),
  z.array(z.unknown()),
]);

/** Activity intraday: the day's summary series plus `activities-{resource}-intraday`. */
export const fitbitActivityIntradayResponseSchema = z.record(
  z.string().regex(/^activities-[a-zA-Z]+(-intraday)?$/),
  z.union([z.array(fitbitSeriesEntrySchema), fitbitIntradayDatasetSchema]),
);
export type FitbitActivityIntradayResponse = z.infer<typeof fitbitActivityIntradayResponseSchema>;

/**
 * `overview`: the six overview tiles' resources over one range, each in its own legacy shape
 * (steps, distance and floors series, heart series, sleep logs, weight logs); a part without
 * data is an empty list (decision 0062).
 */
export const fitbitOverviewResponseSchema = z.object({
  'activities-steps': z.array(fitbitSeriesEntrySchema),
  'activities-distance': z.array(fitbitSeriesEntrySchema),
  'activities-floors': z.array(fitbitSeriesEntrySchema),
  'activities-heart': fitbitHeartSeriesResponseSchema.shape['activities-heart'],
  sleep: z.array(fitbitSleepLogSchema),
  weight: z.array(fitbitWeightLogSchema),
});
export type FitbitOverviewResponse = z.infer<typeof fitbitOverviewResponseSchema>;
