import { z } from 'zod';

/**
 * zod schemas of legacy Fitbit Web API responses (facts §1.2–§1.14), strict so a stray or
 * misspelt field fails. Time-series values are strings; intraday values are numbers.
 */

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const clock = z.string().regex(/^\d{2}:\d{2}:\d{2}$/);
/** Local timestamp without zone, e.g. 2020-02-20T23:21:30.000. */
const localTimestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}$/);
const integerString = z.string().regex(/^\d+$/);
const decimalString = z.string().regex(/^\d+(\.\d+)?$/);

export const errorBody = z.strictObject({
  errors: z
    .array(
      z.strictObject({
        errorType: z.string(),
        fieldName: z.string().optional(),
        message: z.string(),
      }),
    )
    .min(1),
  success: z.literal(false).optional(),
});

export const tokenResponse = z.strictObject({
  access_token: z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]+$/),
  expires_in: z.number().int(),
  refresh_token: z.string().regex(/^[0-9a-f]{64}$/),
  scope: z.string(),
  token_type: z.literal('Bearer'),
  user_id: z.string().regex(/^[0-9A-Z]{6}$/),
});

export function timeSeries(key: string, value: z.ZodType = integerString) {
  return z.strictObject({ [key]: z.array(z.strictObject({ dateTime: date, value })) });
}

export const decimalSeriesValue = decimalString;

export function intraday(key: string, withCalories = false) {
  const point = withCalories
    ? z.strictObject({
        level: z.number().int().min(0).max(3),
        mets: z.number().int(),
        time: clock,
        value: z.number(),
      })
    : z.strictObject({ time: clock, value: z.number() });
  return z.strictObject({
    [key]: z.array(z.strictObject({ dateTime: date, value: decimalString })),
    [`${key}-intraday`]: z.strictObject({
      dataset: z.array(point),
      datasetInterval: z.union([z.literal(1), z.literal(5), z.literal(15)]),
      datasetType: z.literal('minute'),
    }),
  });
}

const heartZone = z.strictObject({
  caloriesOut: z.number(),
  max: z.number().int(),
  min: z.number().int(),
  minutes: z.number().int(),
  name: z.enum(['Out of Range', 'Fat Burn', 'Cardio', 'Peak']),
});

export const heartSeries = z.strictObject({
  'activities-heart': z.array(
    z.strictObject({
      dateTime: date,
      value: z.strictObject({
        customHeartRateZones: z.array(z.unknown()),
        heartRateZones: z.array(heartZone).length(4),
        restingHeartRate: z.number().int().optional(),
      }),
    }),
  ),
});

export const heartIntraday = z.strictObject({
  'activities-heart': z.array(
    z.strictObject({
      customHeartRateZones: z.array(z.unknown()),
      dateTime: date,
      heartRateZones: z.array(heartZone).length(4),
      value: integerString,
    }),
  ),
  'activities-heart-intraday': z.strictObject({
    dataset: z.array(z.strictObject({ time: clock, value: z.number().int() })),
    datasetInterval: z.union([z.literal(1), z.literal(5), z.literal(15)]),
    datasetType: z.enum(['second', 'minute']),
  }),
});

const levelEntry = z.strictObject({
  dateTime: localTimestamp,
  level: z.enum(['deep', 'light', 'rem', 'wake', 'asleep', 'restless', 'awake']),
  seconds: z.number().int().positive(),
});
const stageSummary = z.strictObject({
  count: z.number().int(),
  minutes: z.number().int(),
  thirtyDayAvgMinutes: z.number().int(),
});
const classicSummary = z.strictObject({ count: z.number().int(), minutes: z.number().int() });

export const sleepLog = z.strictObject({
  dateOfSleep: date,
  duration: z.number().int(),
  efficiency: z.number().int().min(0).max(100),
  endTime: localTimestamp,
  infoCode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]),
  isMainSleep: z.boolean(),
  levels: z.union([
    z.strictObject({
      data: z.array(levelEntry),
      shortData: z.array(levelEntry),
      summary: z.strictObject({
        deep: stageSummary,
        light: stageSummary,
        rem: stageSummary,
        wake: stageSummary,
      }),
    }),
    z.strictObject({
      data: z.array(levelEntry),
      summary: z.strictObject({
        asleep: classicSummary,
        awake: classicSummary,
        restless: classicSummary,
      }),
    }),
  ]),
  logId: z.number().int(),
  logType: z.enum(['auto_detected', 'manual']),
  minutesAfterWakeup: z.number().int(),
  minutesAsleep: z.number().int(),
  minutesAwake: z.number().int(),
  minutesToFallAsleep: z.number().int(),
  startTime: localTimestamp,
  timeInBed: z.number().int(),
  type: z.enum(['stages', 'classic']),
});

export const sleepByDate = z.strictObject({
  sleep: z.array(sleepLog),
  summary: z.strictObject({
    stages: z
      .strictObject({ deep: z.number(), light: z.number(), rem: z.number(), wake: z.number() })
      .optional(),
    totalMinutesAsleep: z.number().int(),
    totalSleepRecords: z.number().int(),
    totalTimeInBed: z.number().int(),
  }),
});

export const sleepRange = z.strictObject({ sleep: z.array(sleepLog) });

const pagination = z.strictObject({
  afterDate: z.string().optional(),
  beforeDate: z.string().optional(),
  limit: z.number().int(),
  next: z.string(),
  offset: z.number().int(),
  previous: z.string(),
  sort: z.enum(['asc', 'desc']),
});

export const sleepList = z.strictObject({ pagination, sleep: z.array(sleepLog) });

export const activityLog = z.strictObject({
  activeDuration: z.number().int(),
  activeZoneMinutes: z.strictObject({
    minutesInHeartRateZones: z.array(
      z.strictObject({
        minuteMultiplier: z.number().int(),
        minutes: z.number().int(),
        order: z.number().int(),
        type: z.enum(['OUT_OF_ZONE', 'FAT_BURN', 'CARDIO', 'PEAK']),
        zoneName: z.string(),
      }),
    ),
    totalMinutes: z.number().int(),
  }),
  activityLevel: z.array(
    z.strictObject({
      minutes: z.number().int(),
      name: z.enum(['sedentary', 'lightly', 'fairly', 'very']),
    }),
  ),
  activityName: z.string(),
  activityTypeId: z.number().int(),
  averageHeartRate: z.number().int().optional(),
  calories: z.number().int(),
  distance: z.number().optional(),
  distanceUnit: z.string().optional(),
  duration: z.number().int(),
  hasActiveZoneMinutes: z.boolean(),
  lastModified: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000Z$/),
  logId: z.number().int(),
  logType: z.enum(['auto_detected', 'manual', 'mobile_run', 'tracker', 'fitstar']),
  originalDuration: z.number().int(),
  originalStartTime: z.string(),
  startTime: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.000[+-]\d{2}:\d{2}$/),
  steps: z.number().int(),
});

export const activityList = z.strictObject({ activities: z.array(activityLog), pagination });

export const dailySummary = z.strictObject({
  activities: z.array(
    z.looseObject({ activityId: z.number(), logId: z.number(), startTime: z.string() }),
  ),
  goals: z.strictObject({
    activeMinutes: z.number(),
    caloriesOut: z.number(),
    distance: z.number(),
    floors: z.number(),
    steps: z.number(),
  }),
  summary: z.strictObject({
    activeScore: z.number(),
    activityCalories: z.number().int(),
    caloriesBMR: z.number().int(),
    caloriesOut: z.number().int(),
    distances: z.array(z.strictObject({ activity: z.string(), distance: z.number() })),
    elevation: z.number(),
    fairlyActiveMinutes: z.number().int(),
    floors: z.number().int(),
    heartRateZones: z.array(heartZone),
    lightlyActiveMinutes: z.number().int(),
    marginalCalories: z.number().int(),
    restingHeartRate: z.number().int().optional(),
    sedentaryMinutes: z.number().int(),
    steps: z.number().int(),
    veryActiveMinutes: z.number().int(),
  }),
});

export const weightLogs = z.strictObject({
  weight: z.array(
    z.strictObject({
      bmi: z.number(),
      date,
      fat: z.number().optional(),
      logId: z.number().int(),
      source: z.string(),
      time: clock,
      weight: z.number(),
    }),
  ),
});

export const fatLogs = z.strictObject({
  fat: z.array(
    z.strictObject({
      date,
      fat: z.number(),
      logId: z.number().int(),
      source: z.string(),
      time: clock,
    }),
  ),
});

export const foodLog = z.strictObject({
  foods: z.array(
    z.strictObject({
      isFavorite: z.boolean(),
      logDate: date,
      logId: z.number().int(),
      loggedFood: z.strictObject({
        accessLevel: z.string(),
        amount: z.number(),
        brand: z.string(),
        calories: z.number(),
        foodId: z.number().int(),
        locale: z.string(),
        mealTypeId: z.number().int(),
        name: z.string(),
        unit: z.strictObject({ id: z.number().int(), name: z.string(), plural: z.string() }),
        units: z.array(z.number().int()),
      }),
      nutritionalValues: z.strictObject({
        calories: z.number(),
        carbs: z.number(),
        fat: z.number(),
        fiber: z.number(),
        protein: z.number(),
        sodium: z.number(),
      }),
    }),
  ),
  goals: z.strictObject({ calories: z.number() }),
  summary: z.strictObject({
    calories: z.number(),
    carbs: z.number(),
    fat: z.number(),
    fiber: z.number(),
    protein: z.number(),
    sodium: z.number(),
    water: z.number(),
  }),
});

export const waterLog = z.strictObject({
  summary: z.strictObject({ water: z.number() }),
  water: z.array(z.strictObject({ amount: z.number(), logId: z.number().int() })),
});

const spo2Value = z.strictObject({ avg: z.number(), min: z.number(), max: z.number() });
export const spo2Day = z.union([
  z.strictObject({ dateTime: date, value: spo2Value }),
  z.strictObject({}),
]);
export const spo2Range = z.array(z.strictObject({ dateTime: date, value: spo2Value }));
export const spo2Intraday = z.strictObject({
  dateTime: date,
  minutes: z.array(
    z.strictObject({
      value: z.number(),
      minute: z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/),
    }),
  ),
});

export const cardioScore = z.strictObject({
  cardioScore: z.array(
    z.strictObject({
      dateTime: date,
      value: z.strictObject({ vo2Max: z.string().regex(/^\d+(-\d+)?$/) }),
    }),
  ),
});

export const activeZoneMinutes = z.strictObject({
  'activities-active-zone-minutes': z.array(
    z.strictObject({
      dateTime: date,
      value: z.strictObject({
        activeZoneMinutes: z.number().int(),
        fatBurnActiveZoneMinutes: z.number().int().optional(),
        cardioActiveZoneMinutes: z.number().int().optional(),
        peakActiveZoneMinutes: z.number().int().optional(),
      }),
    }),
  ),
});

export const devices = z.array(
  z.strictObject({
    battery: z.enum(['High', 'Medium', 'Low', 'Empty']),
    batteryLevel: z.number().int().min(0).max(100),
    deviceVersion: z.string(),
    features: z.array(z.string()),
    id: z.string().regex(/^\d+$/),
    lastSyncTime: localTimestamp,
    mac: z.string(),
    type: z.enum(['TRACKER', 'SCALE']),
  }),
);

export const profile = z.strictObject({
  user: z.looseObject({
    encodedId: z.string().regex(/^[0-9A-Z]{6}$/),
    displayName: z.string(),
    timezone: z.string(),
    offsetFromUTCMillis: z.number().int(),
    memberSince: date,
    height: z.number(),
    weight: z.number(),
  }),
});
