/**
 * The metric catalog: which metrics each device type can provide (device-data spec §3
 * "Available metric"). Global product data, not demo data: it is upserted into
 * `metric_catalog` after the migrations on every start, in every mode. The metric keys are
 * the keys sync stores readings under; never rename one.
 */

/** Device types of the global device catalog that have a metric catalog. */
export const METRIC_DEVICE_TYPES = [
  'TRACKER',
  'SCALE',
  'OMRON_BP_MONITOR',
  'OMRON_SCALE',
  'DEXCOM_CGM',
] as const;
export type MetricDeviceType = (typeof METRIC_DEVICE_TYPES)[number];

export type MetricCatalogEntry = {
  metricKey: string;
  metricName: string;
  units: string | null;
  category: string;
  description: string;
  /** Default 30 days (spec §9) when not given. */
  defaultRetentionDays?: number;
};

/** Metric catalog per device type. */
export const METRIC_CATALOG: Record<MetricDeviceType, readonly MetricCatalogEntry[]> = {
  TRACKER: [
    {
      metricKey: 'steps',
      metricName: 'Steps',
      units: 'steps',
      category: 'activity',
      description: 'Daily step count',
    },
    {
      metricKey: 'distance',
      metricName: 'Distance',
      units: 'km',
      category: 'activity',
      description: 'Daily distance',
    },
    {
      metricKey: 'floors',
      metricName: 'Floors',
      units: 'floors',
      category: 'activity',
      description: 'Floors climbed per day',
    },
    {
      metricKey: 'calories',
      metricName: 'Calories Burned',
      units: 'kcal',
      category: 'activity',
      description: 'Calories burned per day',
    },
    {
      metricKey: 'minutes_lightly_active',
      metricName: 'Lightly Active Minutes',
      units: 'min',
      category: 'activity',
      description: 'Minutes of light activity per day',
    },
    {
      metricKey: 'minutes_fairly_active',
      metricName: 'Fairly Active Minutes',
      units: 'min',
      category: 'activity',
      description: 'Minutes of moderate activity per day',
    },
    {
      metricKey: 'minutes_very_active',
      metricName: 'Very Active Minutes',
      units: 'min',
      category: 'activity',
      description: 'Minutes of vigorous activity per day',
    },
    {
      metricKey: 'heart_rate',
      metricName: 'Heart Rate',
      units: 'bpm',
      category: 'heart',
      description: 'Intraday heart rate',
      defaultRetentionDays: 90,
    },
    {
      metricKey: 'resting_heart_rate',
      metricName: 'Resting Heart Rate',
      units: 'bpm',
      category: 'heart',
      description: 'Daily resting heart rate',
    },
    {
      metricKey: 'sleep_duration',
      metricName: 'Sleep Duration',
      units: 'min',
      category: 'sleep',
      description: 'Main sleep duration per night',
    },
    {
      metricKey: 'sleep_stages',
      metricName: 'Sleep Stages',
      units: 'min',
      category: 'sleep',
      description: 'Minutes of deep, light, REM and wake per night',
    },
    {
      metricKey: 'spo2',
      metricName: 'SpO2',
      units: '%',
      category: 'healthMetrics',
      description: 'Nightly blood oxygen saturation',
    },
    {
      metricKey: 'breathing_rate',
      metricName: 'Breathing Rate',
      units: 'breaths/min',
      category: 'healthMetrics',
      description: 'Nightly average breathing rate',
    },
    {
      metricKey: 'vo2_max',
      metricName: 'Cardio Fitness Score (VO2 Max)',
      units: 'mL/kg/min',
      category: 'healthMetrics',
      description: 'Estimated VO2 max',
    },
  ],
  SCALE: [
    {
      metricKey: 'weight',
      metricName: 'Weight',
      units: 'kg',
      category: 'body',
      description: 'Body weight',
    },
    {
      metricKey: 'body_fat',
      metricName: 'Body Fat',
      units: '%',
      category: 'body',
      description: 'Body fat percentage',
    },
    {
      metricKey: 'bmi',
      metricName: 'BMI',
      units: 'kg/m2',
      category: 'body',
      description: 'Body mass index',
    },
  ],
  OMRON_BP_MONITOR: [
    {
      metricKey: 'systolic',
      metricName: 'Systolic Blood Pressure',
      units: 'mmHg',
      category: 'bloodpressure',
      description: 'Systolic pressure per reading',
    },
    {
      metricKey: 'diastolic',
      metricName: 'Diastolic Blood Pressure',
      units: 'mmHg',
      category: 'bloodpressure',
      description: 'Diastolic pressure per reading',
    },
    {
      metricKey: 'pulse',
      metricName: 'Pulse',
      units: 'bpm',
      category: 'bloodpressure',
      description: 'Pulse per reading',
    },
  ],
  OMRON_SCALE: [
    {
      metricKey: 'weight',
      metricName: 'Weight',
      units: 'kg',
      category: 'weight',
      description: 'Body weight per reading',
    },
  ],
  DEXCOM_CGM: [
    {
      metricKey: 'egv',
      metricName: 'Glucose (EGV)',
      units: 'mg/dL',
      category: 'glucose',
      description: 'Estimated glucose value every 5 minutes',
      defaultRetentionDays: 90,
    },
    {
      metricKey: 'egv_trend_rate',
      metricName: 'Glucose Trend Rate',
      units: 'mg/dL/min',
      category: 'glucose',
      description: 'Rate of change of the glucose value',
    },
    {
      metricKey: 'calibration',
      metricName: 'Calibration',
      units: 'mg/dL',
      category: 'glucose',
      description: 'Fingerstick calibrations entered by the user',
    },
    {
      metricKey: 'events',
      metricName: 'Events',
      units: null,
      category: 'events',
      description: 'User-entered events: carbs, insulin, exercise, health',
    },
  ],
};
