import type { DeviceBrandName } from '@trialpulse/shared';

export const BRAND_PATH: Record<DeviceBrandName, 'fitbit' | 'omron' | 'dexcom'> = {
  Fitbit: 'fitbit',
  Omron: 'omron',
  Dexcom: 'dexcom',
};

/** Units of the stored metrics (the metric catalog's). */
export const METRIC_UNITS: Record<string, string> = {
  steps: 'steps',
  distance: 'km',
  floors: 'floors',
  calories: 'kcal',
  heart_rate: 'bpm',
  resting_heart_rate: 'bpm',
  sleep_duration: 'min',
  weight: 'kg',
  body_fat: '%',
  bmi: 'kg/m²',
  spo2: '%',
  systolic: 'mmHg',
  diastolic: 'mmHg',
  pulse: 'bpm',
  egv: 'mg/dL',
  egv_trend_rate: 'mg/dL/min',
  calibration: 'mg/dL',
};
