import type { FitbitWeeklySummary } from '@trialpulse/shared';
import { kgToLbs, kmToMiles, minutesToHours } from '../../common/utils/units';

/** The overview tiles of device-data §2, in their default order. */
export const TILE_IDS = [
  'steps',
  'distance',
  'floors',
  'heartRate',
  'sleepDuration',
  'weight',
] as const;
export type TileId = (typeof TILE_IDS)[number];

export type TileFigures = {
  id: TileId;
  title: string;
  unit: string;
  /** What the figure is: a 7-day total or a 7-day average. */
  measure: 'Total' | 'Average';
  last: number | null;
  previous: number | null;
  /** Change from the previous 7 days in percent, one decimal (null without both weeks). */
  changePercent: number | null;
};

const round1 = (value: number) => Math.round(value * 10) / 10;
const change = (last: number | null, previous: number | null) =>
  last === null || previous === null || previous === 0
    ? null
    : round1(((last - previous) / previous) * 100);
const mapNull = (value: number | null, convert: (n: number) => number) =>
  value === null ? null : convert(value);

/**
 * The six tiles from the weekly summary (§3): last 7 days against the 7 before. Distance in
 * miles and weight in pounds (§9), sleep in hours, resting heart rate in bpm.
 */
export function tilesFromSummary(summary: FitbitWeeklySummary): Record<TileId, TileFigures> {
  const tile = (
    id: TileId,
    title: string,
    unit: string,
    measure: TileFigures['measure'],
    last: number | null,
    previous: number | null,
  ): TileFigures => ({
    id,
    title,
    unit,
    measure,
    last,
    previous,
    changePercent: change(last, previous),
  });
  return {
    steps: tile(
      'steps',
      'Steps',
      'steps',
      'Total',
      summary.total_steps_last_7days,
      summary.total_steps_prev_7days,
    ),
    distance: tile(
      'distance',
      'Distance',
      'mi',
      'Total',
      mapNull(summary.total_distance_last_7days, kmToMiles),
      mapNull(summary.total_distance_prev_7days, kmToMiles),
    ),
    floors: tile(
      'floors',
      'Floors',
      'floors',
      'Total',
      summary.total_floors_last_7days,
      summary.total_floors_prev_7days,
    ),
    heartRate: tile(
      'heartRate',
      'Heart Rate',
      'bpm (resting)',
      'Average',
      mapNull(summary.avrg_resting_heart_rate_last_7days, round1),
      mapNull(summary.avrg_resting_heart_rate_prev_7days, round1),
    ),
    sleepDuration: tile(
      'sleepDuration',
      'Sleep Duration',
      'h per night',
      'Average',
      mapNull(summary.avrg_sleep_duration_last_7days, minutesToHours),
      mapNull(summary.avrg_sleep_duration_prev_7days, minutesToHours),
    ),
    weight: tile(
      'weight',
      'Weight',
      'lbs',
      'Average',
      mapNull(summary.avrg_weight_last_7days, kgToLbs),
      mapNull(summary.avrg_weight_prev_7days, kgToLbs),
    ),
  };
}

/** Shift: the dragged tile moves and the others close up. Swap: the two tiles trade places. */
export type DragMode = 'shift' | 'swap';

export function moveTile<T>(order: readonly T[], from: T, to: T, mode: DragMode): T[] {
  const next = [...order];
  const a = next.indexOf(from);
  const b = next.indexOf(to);
  if (a < 0 || b < 0 || a === b) return next;
  if (mode === 'swap') {
    next[a] = to;
    next[b] = from;
    return next;
  }
  next.splice(a, 1);
  next.splice(b, 0, from);
  return next;
}

/** The rows of the tiles' export (one per tile) and of each tile's own table. */
export const TILE_TABLE_HEADERS = [
  'Tile',
  'Measure',
  'Unit',
  'Last 7 days',
  'Previous 7 days',
  'Change (%)',
] as const;
export const tileTableRow = (tile: TileFigures) =>
  [tile.title, tile.measure, tile.unit, tile.last, tile.previous, tile.changePercent] as const;

/** A stored tile order is used only when it holds exactly the six tiles. */
export function validTileOrder(value: unknown): TileId[] | null {
  if (!Array.isArray(value) || value.length !== TILE_IDS.length) return null;
  const ids = new Set(value);
  return TILE_IDS.every((id) => ids.has(id)) ? (value as TileId[]) : null;
}
