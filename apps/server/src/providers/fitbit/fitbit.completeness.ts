import type { BrandCompleteness } from '../types';

/**
 * Fitbit's day (decision 0050): worn at least the trial's wear hours. Heart rate and steps
 * are what a worn tracker records, so their first day starts the expectation (decision 0181).
 */
export const fitbitCompleteness: BrandCompleteness = {
  brand: 'Fitbit',
  firstDataMetrics: ['heart_rate', 'steps'],
  measure: 'wear',
  day: ({ wearMinutes }, thresholds) => ({
    hasData: wearMinutes > 0,
    passes: wearMinutes >= thresholds.minWearHours * 60,
  }),
  alert: { kind: 'low_wear', words: 'low wear time' },
};
