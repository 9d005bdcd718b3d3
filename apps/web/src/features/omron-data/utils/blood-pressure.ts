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

const average = (values: readonly number[]) =>
  values.length === 0
    ? null
    : Math.round((values.reduce((sum, value) => sum + value, 0) / values.length) * 10) / 10;

/**
 * Mean systolic, diastolic (mmHg) and pulse (BPM, of the readings that have one), one
 * decimal; null without readings. The overview's 7-day average and the report's period
 * average are this one computation.
 */
export function bloodPressureAverages(
  readings: readonly { systolic: number; diastolic: number; pulse: number | null }[],
): { systolic: number | null; diastolic: number | null; pulse: number | null; count: number } {
  return {
    systolic: average(readings.map((r) => r.systolic)),
    diastolic: average(readings.map((r) => r.diastolic)),
    pulse: average(readings.flatMap((r) => (r.pulse === null ? [] : [r.pulse]))),
    count: readings.length,
  };
}
