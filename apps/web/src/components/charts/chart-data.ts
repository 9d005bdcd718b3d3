import type { EChartOption } from './echart-option';

/**
 * A chart's data read back from its ECharts option: the same series the chart draws, as a
 * table (the "Show as table" view) and as one sentence (the chart's accessible summary,
 * ECharts `aria`). Decision 0171.
 */
export type ChartTable = {
  columns: { key: string; header: string }[];
  rows: Array<Record<string, string | number | null>>;
};

type SeriesLike = { name?: string; data?: unknown };
type AxisLike = { type?: string; data?: unknown; name?: string };

const first = <T>(value: T | T[] | undefined): T | undefined =>
  Array.isArray(value) ? value[0] : value;

function seriesOf(option: EChartOption): SeriesLike[] {
  const series = option.series;
  return (Array.isArray(series) ? series : series ? [series] : []) as SeriesLike[];
}

function pad(value: number): string {
  return String(value).padStart(2, '0');
}

/**
 * A time axis's instant as the chart shows it: local time, or UTC where the option says
 * `useUTC` (the one-day chart keeps the participant's clock that way).
 */
export function timeText(at: number, withDate: boolean, utc = false): string {
  const d = new Date(at);
  const [h, m, sec] = utc
    ? [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]
    : [d.getHours(), d.getMinutes(), d.getSeconds()];
  const [y, mo, day] = utc
    ? [d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()]
    : [d.getFullYear(), d.getMonth(), d.getDate()];
  const time = `${pad(h)}:${pad(m)}:${pad(sec)}`;
  const date = `${y}-${pad(mo + 1)}-${pad(day)}`;
  if (!withDate) return time;
  return h === 0 && m === 0 && sec === 0 ? date : `${date} ${time}`;
}

function pointsOf(
  series: SeriesLike,
  categories: readonly string[] | null,
): Array<[string | number, number | null]> {
  const data = series.data;
  if (!data || typeof (data as ArrayLike<unknown>).length !== 'number') return [];
  if (ArrayBuffer.isView(data)) {
    // Typed-array data (the one-day chart): x, y pairs one after another.
    const flat = data as unknown as ArrayLike<number>;
    const pairs: Array<[number, number | null]> = [];
    for (let i = 0; i + 1 < flat.length; i += 2) {
      const y = flat[i + 1]!;
      pairs.push([flat[i]!, Number.isNaN(y) ? null : y]);
    }
    return pairs;
  }
  const list = data as ArrayLike<unknown>;
  const out: Array<[string | number, number | null]> = [];
  for (let i = 0; i < list.length; i += 1) {
    const item = list[i];
    const pair = Array.isArray(item)
      ? item
      : item && typeof item === 'object' && 'value' in item
        ? (item as { value: unknown }).value
        : item;
    if (Array.isArray(pair)) {
      const [x, y] = pair as [unknown, unknown];
      out.push([
        typeof x === 'number' || typeof x === 'string' ? x : i,
        typeof y === 'number' ? y : null,
      ]);
    } else {
      out.push([categories?.[i] ?? i, typeof pair === 'number' ? pair : null]);
    }
  }
  return out;
}

function axisOf(option: EChartOption): { x: AxisLike | undefined; y: AxisLike | undefined } {
  return {
    x: first(option.xAxis as AxisLike | AxisLike[] | undefined),
    y: first(option.yAxis as AxisLike | AxisLike[] | undefined),
  };
}

/** The chart's series side by side: one row per x value, one column per series. */
export function chartTable(option: EChartOption): ChartTable {
  const { x, y } = axisOf(option);
  const categories = x?.type === 'category' && Array.isArray(x.data) ? (x.data as string[]) : null;
  const isTime = x?.type === 'time';
  const series = seriesOf(option);
  const allPoints = series.map((s) => pointsOf(s, categories));
  const withDate = isTime && spansDays(allPoints);
  const utc = option.useUTC === true;
  const unit = y?.name ? ` (${y.name})` : '';
  const columns = [
    { key: 'x', header: isTime ? 'Time' : 'Category' },
    ...series.map((s, index) => ({
      key: `s${index}`,
      header: `${s.name ?? `Series ${index + 1}`}${unit}`,
    })),
  ];
  const rows = new Map<string | number, Record<string, string | number | null>>();
  allPoints.forEach((points, index) => {
    for (const [at, value] of points) {
      const row = rows.get(at) ?? {
        x: isTime && typeof at === 'number' ? timeText(at, withDate, utc) : at,
      };
      row[`s${index}`] = value;
      rows.set(at, row);
    }
  });
  const ordered = isTime
    ? [...rows.entries()].sort((a, b) => Number(a[0]) - Number(b[0])).map(([, row]) => row)
    : [...rows.values()];
  for (const row of ordered)
    for (const column of columns) if (!(column.key in row)) row[column.key] = null;
  return { columns, rows: ordered };
}

function spansDays(all: Array<Array<[string | number, number | null]>>): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (const points of all)
    for (const [at] of points)
      if (typeof at === 'number') {
        if (at < min) min = at;
        if (at > max) max = at;
      }
  return (
    max - min >= 86_400_000 ||
    (min !== Infinity && new Date(min).getDate() !== new Date(max).getDate())
  );
}

const number = (value: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) < 10 ? 1 : 0 });

/** One sentence per series: how many values, over what span, lowest–highest and mean. */
export function chartSummary(option: EChartOption, title: string): string {
  const { x, y } = axisOf(option);
  const categories = x?.type === 'category' && Array.isArray(x.data) ? (x.data as string[]) : null;
  const isTime = x?.type === 'time';
  const unit = y?.name ? ` ${y.name}` : '';
  const series = seriesOf(option);
  const allPoints = series.map((s) => pointsOf(s, categories));
  const withDate = isTime && spansDays(allPoints);
  const utc = option.useUTC === true;
  const parts = series.map((s, index) => {
    const points = allPoints[index]!;
    let count = 0;
    let sum = 0;
    let min = Infinity;
    let max = -Infinity;
    for (const [, value] of points) {
      if (value === null) continue;
      count += 1;
      sum += value;
      if (value < min) min = value;
      if (value > max) max = value;
    }
    const name = s.name ?? `Series ${index + 1}`;
    if (count === 0) return `${name}: no values.`;
    const xs = points.map(([at]) => at);
    const from = xs[0]!;
    const to = xs[xs.length - 1]!;
    const span = isTime
      ? ` from ${timeText(Number(from), withDate, utc)} to ${timeText(Number(to), withDate, utc)}`
      : xs.length > 1
        ? ` from ${from} to ${to}`
        : '';
    return `${name}: ${count.toLocaleString('en-US')} value${count === 1 ? '' : 's'}${span}, lowest ${number(min)}${unit}, highest ${number(max)}${unit}, mean ${number(sum / count)}${unit}.`;
  });
  return [`${title}.`, ...parts].join(' ');
}

/** The option with ECharts' accessibility on: the summary becomes the chart's label. */
export function withAria(option: EChartOption, title: string): EChartOption {
  return {
    ...option,
    aria: { enabled: true, label: { description: chartSummary(option, title) } },
  };
}

/** The zoom window after a key: `+`/`-` zoom about the centre, arrows pan, `0`/Home all. */
export function zoomAfterKey(
  key: string,
  window: { start: number; end: number },
): { start: number; end: number } | null {
  const width = window.end - window.start;
  const centre = (window.start + window.end) / 2;
  const clampWindow = (start: number, end: number) => {
    const w = Math.min(Math.max(end - start, 0.05), 100);
    const s = Math.min(Math.max(start, 0), 100 - w);
    return { start: round(s), end: round(s + w) };
  };
  switch (key) {
    case '+':
    case '=':
      return clampWindow(centre - width / 4, centre + width / 4);
    case '-':
    case '_':
      return clampWindow(centre - width, centre + width);
    case 'ArrowLeft':
      return clampWindow(window.start - width / 4, window.end - width / 4);
    case 'ArrowRight':
      return clampWindow(window.start + width / 4, window.end + width / 4);
    case '0':
    case 'Home':
      return { start: 0, end: 100 };
    default:
      return null;
  }
}

const round = (value: number) => Math.round(value * 1000) / 1000;
