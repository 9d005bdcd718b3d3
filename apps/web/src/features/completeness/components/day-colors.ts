import type { Theme } from '@mui/material/styles';
import type { DayState } from '@trialpulse/shared';

/** A day's fill in the grid and the strips (the legend uses the same). */
export function dayColor(theme: Theme, state: DayState): string {
  switch (state) {
    case 'valid':
      return theme.palette.success.main;
    case 'partial':
      return theme.palette.error.light;
    case 'missing':
      return theme.palette.error.dark;
    case 'in_progress':
      return theme.palette.info.light;
    default:
      return theme.palette.grey[300];
  }
}

export const DAY_STATE_LABELS: Record<DayState, string> = {
  valid: 'Valid day',
  partial: 'Below threshold',
  missing: 'No data',
  in_progress: 'Today, not yet valid',
  none: 'No device expected',
};
