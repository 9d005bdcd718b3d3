import type { BrandCompleteness } from '../types';

/** Dexcom's day (decision 0050): sensor usage (EGVs ÷ 288) at least the trial's CGM threshold. */
export const dexcomCompleteness: BrandCompleteness = {
  brand: 'Dexcom',
  firstDataMetrics: ['egv'],
  measure: 'cgm',
  day: ({ cgmUsagePercent }, thresholds) => ({
    hasData: cgmUsagePercent > 0,
    passes: cgmUsagePercent >= thresholds.minCgmUsagePercent,
  }),
  alert: { kind: 'low_cgm', words: 'low CGM sensor usage' },
};
