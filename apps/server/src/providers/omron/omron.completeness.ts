import type { BrandCompleteness } from '../types';

/**
 * Omron's day (decision 0050): at least the protocol's blood-pressure readings per day; when
 * the protocol sets none, at least one Omron reading, blood pressure or weight. The digest
 * alerts only on a per-day number the protocol sets.
 */
export const omronCompleteness: BrandCompleteness = {
  brand: 'Omron',
  firstDataMetrics: ['systolic', 'weight'],
  measure: 'bp',
  day: ({ bpReadings, weightReadings }, thresholds) => {
    if (thresholds.minBpReadingsPerDay > 0)
      return { hasData: bpReadings > 0, passes: bpReadings >= thresholds.minBpReadingsPerDay };
    const readings = bpReadings + weightReadings;
    return { hasData: readings > 0, passes: readings >= 1 };
  },
  alert: {
    kind: 'low_bp',
    words: 'too few blood-pressure readings',
    applies: (thresholds) => thresholds.minBpReadingsPerDay > 0,
  },
};
