import type { CompareResource } from '../multi/compare';

/** Tiles of /FitbitParticipantOverview (decision 0069): the daily series the call answers. */
export const OVERVIEW_TILES: ReadonlyArray<{
  resource: CompareResource;
  label: string;
  unit: string;
}> = [
  { resource: 'steps', label: 'Steps', unit: 'steps' },
  { resource: 'distance', label: 'Distance', unit: 'mi' },
  { resource: 'floors', label: 'Floors', unit: 'floors' },
  { resource: 'calories', label: 'Calories', unit: 'kcal' },
];

/** 14 days ending `end`: the last 7 days against the 7 before (device-data §9's overview range). */
export function overviewPath(resource: CompareResource, end: string): string {
  return `activities/${resource}/date/${shift(end, -13)}/${end}.json`;
}

export function shift(day: string, days: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
}

export type TileFigures = {
  last7: number;
  previous7: number;
  change: number | null;
  days: Array<[string, number]>;
};

/** Totals of the last 7 and previous 7 days of `values` ending `end`; change in % (null without a base). */
export function tileFigures(values: ReadonlyMap<string, number>, end: string): TileFigures {
  let last7 = 0;
  let previous7 = 0;
  const days: Array<[string, number]> = [];
  for (let offset = -13; offset <= 0; offset += 1) {
    const day = shift(end, offset);
    const value = values.get(day) ?? 0;
    days.push([day, value]);
    if (offset > -7) last7 += value;
    else previous7 += value;
  }
  const round = (value: number) => Math.round(value * 100) / 100;
  return {
    last7: round(last7),
    previous7: round(previous7),
    change: previous7 > 0 ? Math.round(((last7 - previous7) / previous7) * 1000) / 10 : null,
    days,
  };
}
