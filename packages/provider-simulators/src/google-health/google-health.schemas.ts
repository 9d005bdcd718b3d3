import { z } from 'zod';

/**
 * zod schemas of Google Health API v4 responses (facts §3, §8, §9, §11), strict so a stray
 * or misspelt field fails. Tests assert the simulator against them; TrialPulse's client may
 * use looser versions (the real API adds fields over time).
 */

/** int64 in proto3 JSON: a decimal string. */
export const int64 = z.string().regex(/^-?\d+$/);
export const timestamp = z.string().regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/);
export const durationString = z.string().regex(/^-?\d+(\.\d+)?s$/);
export const dateObject = z.strictObject({
  year: z.number().int().min(1970),
  month: z.number().int().min(1).max(12),
  day: z.number().int().min(1).max(31),
});
export const timeOfDay = z.strictObject({
  hours: z.number().int().min(1).max(23).optional(),
  minutes: z.number().int().min(1).max(59).optional(),
  seconds: z.number().int().min(1).max(59).optional(),
  nanos: z.number().int().min(1).optional(),
});
export const civilDateTime = z.strictObject({ date: dateObject, time: timeOfDay });

export const observationInterval = z.strictObject({
  startTime: timestamp,
  startUtcOffset: durationString,
  endTime: timestamp,
  endUtcOffset: durationString,
  civilStartTime: civilDateTime,
  civilEndTime: civilDateTime,
});
/** Sleep and exercise intervals come back without civil times (facts §8 [S] live). */
export const sessionInterval = z.strictObject({
  startTime: timestamp,
  startUtcOffset: durationString,
  endTime: timestamp,
  endUtcOffset: durationString,
});
export const sampleTime = z.strictObject({
  physicalTime: timestamp,
  utcOffset: durationString,
  civilTime: civilDateTime,
});

export const dataSource = z.strictObject({
  recordingMethod: z.enum([
    'MANUAL',
    'PASSIVELY_MEASURED',
    'DERIVED',
    'ACTIVELY_MEASURED',
    'UNKNOWN',
  ]),
  device: z
    .strictObject({
      displayName: z.string(),
      formFactor: z.enum([
        'FITNESS_BAND',
        'WATCH',
        'PHONE',
        'RING',
        'CHEST_STRAP',
        'SCALE',
        'TABLET',
        'HEAD_MOUNTED',
        'SMART_DISPLAY',
      ]),
      manufacturer: z.string(),
    })
    .optional(),
  platform: z.enum([
    'FITBIT',
    'HEALTH_CONNECT',
    'HEALTH_KIT',
    'FIT',
    'FITBIT_WEB_API',
    'NEST',
    'GOOGLE_WEB_API',
    'GOOGLE_PARTNER_INTEGRATION',
  ]),
});

const pointName = z.string().regex(/^users\/\d+\/dataTypes\/[a-z0-9-]+\/dataPoints\/\d+$/);
const zoneType = z.enum(['LIGHT', 'MODERATE', 'VIGOROUS', 'PEAK']);

/** The union value of each data type, keyed by its JSON key. */
export const dataTypeValues = {
  steps: z.strictObject({ interval: observationInterval, count: int64 }),
  distance: z.strictObject({ interval: observationInterval, millimeters: int64 }),
  floors: z.strictObject({ interval: observationInterval, count: int64 }),
  altitude: z.strictObject({ interval: observationInterval, gainMillimeters: int64 }),
  heartRate: z.strictObject({
    sampleTime,
    beatsPerMinute: int64,
    metadata: z
      .strictObject({ motionContext: z.enum(['ACTIVE', 'SEDENTARY']), sensorLocation: z.string() })
      .optional(),
  }),
  activeZoneMinutes: z.strictObject({
    interval: observationInterval,
    heartRateZone: z.enum(['FAT_BURN', 'CARDIO', 'PEAK']),
    activeZoneMinutes: int64,
  }),
  activityLevel: z.strictObject({
    interval: observationInterval,
    activityLevelType: z.enum(['SEDENTARY', 'LIGHTLY_ACTIVE', 'MODERATELY_ACTIVE', 'VERY_ACTIVE']),
  }),
  dailyRestingHeartRate: z.strictObject({
    date: dateObject,
    beatsPerMinute: int64,
    dailyRestingHeartRateMetadata: z
      .strictObject({ calculationMethod: z.enum(['WITH_SLEEP', 'ONLY_WITH_AWAKE_DATA']) })
      .optional(),
  }),
  dailyHeartRateZones: z.strictObject({
    date: dateObject,
    heartRateZones: z.array(
      z.strictObject({
        heartRateZoneType: zoneType,
        minBeatsPerMinute: int64,
        maxBeatsPerMinute: int64,
      }),
    ),
  }),
  sleep: z.strictObject({
    interval: sessionInterval,
    type: z.enum(['STAGES', 'CLASSIC']),
    stages: z.array(
      z.strictObject({
        startTime: timestamp,
        startUtcOffset: durationString,
        endTime: timestamp,
        endUtcOffset: durationString,
        type: z.enum(['AWAKE', 'LIGHT', 'DEEP', 'REM', 'RESTLESS', 'ASLEEP']),
        createTime: timestamp,
        updateTime: timestamp,
      }),
    ),
    shortAwakenings: z
      .array(
        z.strictObject({
          startTime: timestamp,
          startUtcOffset: durationString,
          endTime: timestamp,
          endUtcOffset: durationString,
          type: z.string(),
        }),
      )
      .optional(),
    metadata: z.strictObject({
      stagesStatus: z.string(),
      processed: z.boolean(),
      mainSleep: z.boolean().optional(),
      nap: z.boolean().optional(),
    }),
    summary: z.strictObject({
      minutesInSleepPeriod: int64,
      minutesAfterWakeUp: int64.optional(),
      minutesToFallAsleep: int64.optional(),
      minutesAsleep: int64,
      minutesAwake: int64.optional(),
      stagesSummary: z.array(z.strictObject({ type: z.string(), minutes: int64, count: int64 })),
    }),
    createTime: timestamp,
    updateTime: timestamp,
  }),
  weight: z.strictObject({ sampleTime, weightGrams: z.number() }),
  bodyFat: z.strictObject({ sampleTime, percentage: z.number() }),
  oxygenSaturation: z.strictObject({ sampleTime, percentage: z.number() }),
  dailyOxygenSaturation: z.strictObject({
    date: dateObject,
    averagePercentage: z.number(),
    lowerBoundPercentage: z.number(),
    upperBoundPercentage: z.number(),
    standardDeviationPercentage: z.number().optional(),
  }),
  dailyVo2Max: z.strictObject({
    date: dateObject,
    vo2Max: z.number(),
    cardioFitnessLevel: z.enum(['POOR', 'FAIR', 'AVERAGE', 'GOOD', 'VERY_GOOD', 'EXCELLENT']),
    estimated: z.boolean(),
    vo2MaxCovariance: z.number().optional(),
  }),
  exercise: z.strictObject({
    interval: sessionInterval,
    exerciseType: z.string(),
    displayName: z.string(),
    activeDuration: durationString,
    metricsSummary: z.strictObject({
      caloriesKcal: z.number().optional(),
      averageHeartRateBeatsPerMinute: int64.optional(),
      activeZoneMinutes: int64.optional(),
      heartRateZoneDurations: z.strictObject({
        lightTime: durationString,
        moderateTime: durationString,
        vigorousTime: durationString,
        peakTime: durationString,
      }),
      distanceMillimeters: z.number().optional(),
      steps: int64.optional(),
      averagePaceSecondsPerMeter: z.number().optional(),
      averageSpeedMillimetersPerSecond: z.number().optional(),
    }),
    exerciseEvents: z.array(
      z.strictObject({
        eventTime: timestamp,
        eventUtcOffset: durationString,
        exerciseEventType: z.enum([
          'START',
          'STOP',
          'PAUSE',
          'RESUME',
          'AUTO_PAUSE',
          'AUTO_RESUME',
        ]),
      }),
    ),
    exerciseMetadata: z.strictObject({ hasGps: z.boolean() }),
    createTime: timestamp,
    updateTime: timestamp,
  }),
  nutritionLog: z.strictObject({
    interval: observationInterval,
    foodDisplayName: z.string(),
    mealType: z.enum([
      'BREAKFAST',
      'LUNCH',
      'DINNER',
      'SNACK',
      'BEFORE_BREAKFAST',
      'BEFORE_LUNCH',
      'BEFORE_DINNER',
      'AFTER_DINNER',
      'ANYTIME',
    ]),
    energy: z.strictObject({ kcal: z.number() }),
    energyFromFat: z.strictObject({ kcal: z.number() }),
    totalCarbohydrate: z.strictObject({ grams: z.number() }),
    totalFat: z.strictObject({ grams: z.number() }),
    nutrients: z.array(
      z.strictObject({ nutrient: z.string(), quantity: z.strictObject({ grams: z.number() }) }),
    ),
    serving: z.strictObject({ amount: z.number(), foodMeasurementUnitDisplayName: z.string() }),
  }),
  hydrationLog: z.strictObject({
    interval: observationInterval,
    amountConsumed: z.strictObject({ milliliters: z.number(), userProvidedUnit: z.string() }),
  }),
} as const;

export type DataTypeJsonKey = keyof typeof dataTypeValues;

/** ListDataPointsResponse for one data type; `{}` (no points, no token) is valid. */
export function listResponse(key: DataTypeJsonKey) {
  return z.strictObject({
    dataPoints: z
      .array(z.strictObject({ name: pointName.optional(), dataSource, [key]: dataTypeValues[key] }))
      .min(1)
      .optional(),
    nextPageToken: z.string().optional(),
  });
}

/** ReconcileDataPointsResponse: dataPointName instead of name, no dataSource. */
export function reconcileResponse(key: DataTypeJsonKey) {
  return z.strictObject({
    dataPoints: z
      .array(z.strictObject({ dataPointName: pointName.optional(), [key]: dataTypeValues[key] }))
      .min(1)
      .optional(),
    nextPageToken: z.string().optional(),
  });
}

/** Rollup values per union key (facts §6); zero int64 fields are omitted. */
export const rollupValues = {
  steps: z.strictObject({ countSum: int64.optional() }),
  distance: z.strictObject({ millimetersSum: int64.optional() }),
  floors: z.strictObject({ countSum: int64.optional() }),
  altitude: z.strictObject({ gainMillimetersSum: int64.optional() }),
  totalCalories: z.strictObject({ kcalSum: z.number().optional() }),
  heartRate: z.strictObject({
    beatsPerMinuteAvg: z.number(),
    beatsPerMinuteMin: z.number(),
    beatsPerMinuteMax: z.number(),
  }),
  activeZoneMinutes: z.strictObject({
    sumInFatBurnHeartZone: int64.optional(),
    sumInCardioHeartZone: int64.optional(),
    sumInPeakHeartZone: int64.optional(),
  }),
  activityLevel: z.strictObject({
    activityLevelRollupsByActivityLevelType: z.array(
      z.strictObject({
        activityLevelType: z.enum([
          'SEDENTARY',
          'LIGHTLY_ACTIVE',
          'MODERATELY_ACTIVE',
          'VERY_ACTIVE',
        ]),
        totalDuration: durationString,
      }),
    ),
  }),
  weight: z.strictObject({ weightGramsAvg: z.number() }),
  bodyFat: z.strictObject({ bodyFatPercentageAvg: z.number() }),
  hydrationLog: z.strictObject({
    amountConsumed: z.strictObject({
      millilitersSum: z.number(),
      userProvidedUnitLast: z.string(),
    }),
  }),
  nutritionLog: z.strictObject({
    energy: z.strictObject({ kcalSum: z.number(), userProvidedUnitLast: z.string() }),
    energyFromFat: z.strictObject({ kcalSum: z.number() }),
    totalCarbohydrate: z.strictObject({ gramsSum: z.number() }),
    totalFat: z.strictObject({ gramsSum: z.number() }),
    nutrients: z.array(
      z.strictObject({ nutrient: z.string(), quantity: z.strictObject({ gramsSum: z.number() }) }),
    ),
  }),
} as const;

export type RollupKey = keyof typeof rollupValues;

export function rollUpResponse(key: RollupKey) {
  return z.strictObject({
    rollupDataPoints: z
      .array(z.strictObject({ startTime: timestamp, endTime: timestamp, [key]: rollupValues[key] }))
      .min(1)
      .optional(),
    nextPageToken: z.string().optional(),
  });
}

export function dailyRollUpResponse(key: RollupKey) {
  return z.strictObject({
    rollupDataPoints: z
      .array(
        z.strictObject({
          civilStartTime: civilDateTime,
          civilEndTime: civilDateTime,
          [key]: rollupValues[key],
        }),
      )
      .min(1)
      .optional(),
    nextPageToken: z.string().optional(),
  });
}

export const identityResponse = z.strictObject({
  name: z.literal('users/me/identity'),
  healthUserId: z.string().regex(/^[A-Za-z0-9-]{1,63}$/),
  legacyUserId: z.string().regex(/^[A-Z0-9]{6}$/),
});

export const profileResponse = z.strictObject({
  name: z.literal('users/me/profile'),
  age: z.number().int(),
  membershipStartDate: dateObject,
  autoRunningStrideLengthMm: z.number().int().optional(),
  autoWalkingStrideLengthMm: z.number().int().optional(),
  userConfiguredRunningStrideLengthMm: z.number().int().optional(),
  userConfiguredWalkingStrideLengthMm: z.number().int().optional(),
});

export const settingsResponse = z.strictObject({
  name: z.literal('users/me/settings'),
  autoStrideEnabled: z.boolean(),
  distanceUnit: z.enum(['DISTANCE_UNIT_MILES', 'DISTANCE_UNIT_KILOMETERS']),
  glucoseUnit: z.string(),
  heightUnit: z.string(),
  swimUnit: z.string(),
  temperatureUnit: z.string(),
  waterUnit: z.enum(['ML', 'FL_OZ', 'CUP']),
  weightUnit: z.enum(['POUNDS', 'STONE', 'KILOGRAMS']),
  languageLocale: z.string(),
  foodLanguageCode: z.string(),
  strideLengthRunningType: z.string(),
  strideLengthWalkingType: z.string(),
  timeZone: z.string(),
  utcOffset: durationString,
});

export const pairedDevice = z.strictObject({
  name: z.string().regex(/^users\/\d+\/pairedDevices\/\d+$/),
  deviceType: z.enum(['TRACKER', 'SCALE']),
  deviceVersion: z.string(),
  batteryLevel: z.number().int().min(0).max(100),
  batteryStatus: z.enum(['High', 'Medium', 'Low', 'Empty']),
  lastSyncTime: timestamp,
  macAddress: z.string(),
  features: z.array(z.string()),
});

export const pairedDevicesResponse = z.strictObject({
  pairedDevices: z.array(pairedDevice).optional(),
  nextPageToken: z.string().optional(),
});

/** google.rpc.Status JSON. */
export const errorResponse = z.strictObject({
  error: z.strictObject({
    code: z.number().int(),
    message: z.string(),
    status: z.string(),
    details: z.array(z.looseObject({ '@type': z.string() })).optional(),
  }),
});

export const tokenResponse = z.strictObject({
  access_token: z.string().startsWith('ya29.'),
  expires_in: z.literal(3599),
  refresh_token: z.string().optional(),
  refresh_token_expires_in: z.number().int().optional(),
  scope: z.string(),
  token_type: z.literal('Bearer'),
});

export const oauthErrorResponse = z.strictObject({
  error: z.string(),
  error_description: z.string(),
});
