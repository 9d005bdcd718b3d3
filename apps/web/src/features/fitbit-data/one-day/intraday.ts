/**
 * Legacy Fitbit intraday answers (provider-apis §1.6, §1.7) as flat typed arrays for
 * ECharts: `[t0, v0, t1, v1, …]` with t in epoch ms of the participant's clock read as UTC
 * (the chart draws with `useUTC`, so the axis shows the participant's local time).
 */
export type IntradaySeries = {
  /** Interleaved time (ms) and value pairs. */
  xy: Float64Array;
  /** Number of points (xy.length / 2). */
  count: number;
  min: number;
  max: number;
};

type Dataset = { dataset?: Array<{ time?: unknown; value?: unknown }> };

const TIME = /^(\d{2}):(\d{2})(?::(\d{2}))?$/;

/** The `activities-{resource}-intraday` dataset of one day; empty when the answer has none. */
export function intradayOf(body: unknown, resource: string, day: string): IntradaySeries {
  const intraday = (body as Record<string, Dataset | undefined> | null)?.[
    `activities-${resource}-intraday`
  ];
  const dataset = Array.isArray(intraday?.dataset) ? intraday.dataset : [];
  const midnight = Date.parse(`${day}T00:00:00Z`);
  const xy = new Float64Array(dataset.length * 2);
  let count = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const point of dataset) {
    const match = typeof point.time === 'string' ? TIME.exec(point.time) : null;
    const value = typeof point.value === 'number' ? point.value : Number(point.value);
    if (!match || !Number.isFinite(value)) continue;
    const seconds = Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3] ?? 0);
    xy[count * 2] = midnight + seconds * 1000;
    xy[count * 2 + 1] = value;
    count += 1;
    if (value < min) min = value;
    if (value > max) max = value;
  }
  return {
    xy: count * 2 === xy.length ? xy : xy.slice(0, count * 2),
    count,
    min: count ? min : 0,
    max: count ? max : 0,
  };
}

/** Sum of the values (steps of a day from the minute dataset). */
export function totalOf(series: IntradaySeries): number {
  let total = 0;
  for (let index = 1; index < series.xy.length; index += 2) total += series.xy[index]!;
  return total;
}

/** The day the page opens on: yesterday in the browser's calendar (today is incomplete). */
export function defaultDay(now = new Date()): string {
  const yesterday = new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1);
  return `${yesterday.getFullYear()}-${String(yesterday.getMonth() + 1).padStart(2, '0')}-${String(yesterday.getDate()).padStart(2, '0')}`;
}

/** The browser's today as yyyy-MM-dd (date pickers allow no later day, device-data §5). */
export function todayText(now = new Date()): string {
  return defaultDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1));
}

/** Checks a picked day (device-data §5): a date is required and may not be after today. */
export function dayError(day: string, today: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day)) return 'Please select a start date';
  if (day > today) return 'Start date cannot be in the future.';
  return null;
}
