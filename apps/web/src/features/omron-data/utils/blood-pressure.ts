import type { ValueBand } from '@/components/charts/time-axis-chart';

/**
 * The usual blood-pressure categories (ACC/AHA 2017) as shaded bands on the mmHg axis of
 * the systolic reading: normal < 120, elevated 120–129, stage 1 130–139, stage 2 ≥ 140.
 * Diastolic thresholds (80, 90) are drawn as lines.
 */
export const SYSTOLIC_BANDS: readonly ValueBand[] = [
  { from: 90, to: 120, color: 'rgba(76, 175, 80, 0.10)', label: 'Normal' },
  { from: 120, to: 130, color: 'rgba(255, 235, 59, 0.18)', label: 'Elevated' },
  { from: 130, to: 140, color: 'rgba(255, 152, 0, 0.15)', label: 'Stage 1' },
  { from: 140, to: 180, color: 'rgba(244, 67, 54, 0.12)', label: 'Stage 2' },
];
export const DIASTOLIC_THRESHOLDS = [80, 90] as const;
