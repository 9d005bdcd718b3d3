import type { DayState } from '@trialpulse/shared';

/**
 * How a day looks in the grid, the strips and the legend. Colour is never the only cue:
 * each state has its own symbol, and the fills come from the Okabe–Ito palette (blue,
 * orange), which stays apart under red–green colour blindness; "No data" is an empty
 * outlined square, not a second red. Each symbol has at least 4.5:1 contrast on its fill
 * (decision 0170).
 */
export type DayStyle = {
  fill: string;
  /** The symbol's colour. */
  ink: string;
  border: string;
  /** Shown in the grid cell and the legend (hidden from screen readers: the name says it). */
  symbol: string;
};

export const DAY_STYLES: Record<DayState, DayStyle> = {
  // White on #0072b2: 5.19:1.
  valid: { fill: '#0072b2', ink: '#ffffff', border: '#0072b2', symbol: '✓' },
  // #1c2833 on #e69f00: 6.66:1.
  partial: { fill: '#e69f00', ink: '#1c2833', border: '#e69f00', symbol: '◐' },
  // #1c2833 on white: 14.99:1.
  missing: { fill: '#ffffff', ink: '#1c2833', border: '#1c2833', symbol: '✕' },
  // #1c2833 on #d6eaf8: 12.13:1.
  in_progress: { fill: '#d6eaf8', ink: '#1c2833', border: '#0072b2', symbol: '…' },
  // #52606d on #eceff1: 5.59:1.
  none: { fill: '#eceff1', ink: '#52606d', border: '#eceff1', symbol: '–' },
};

/** A day's fill in the grid and the strips (the legend uses the same). */
export function dayColor(state: DayState): string {
  return DAY_STYLES[state].fill;
}

export const DAY_STATE_LABELS: Record<DayState, string> = {
  valid: 'Valid day',
  partial: 'Below threshold',
  missing: 'No data',
  in_progress: 'Today, not yet valid',
  none: 'No device expected',
};
