import type { EChartOption } from './echart-option';

export type TimeSeries = {
  name: string;
  /** [epoch ms, value]; null values leave a gap. */
  points: ReadonlyArray<readonly [number, number | null]>;
  color?: string;
  /** Draw points only (sparse readings such as blood pressure). */
  symbolOnly?: boolean;
};

export type ValueBand = { from: number; to: number; color: string; label: string };

/**
 * The option of a time-series chart as the data pages draw them: a time x axis with zoom
 * (slider and wheel), one y axis named with its unit, a legend, a tooltip on the axis and,
 * optionally, shaded value bands (blood-pressure categories, glucose target range).
 * Large series are sampled by ECharts (`lttb`), so a day of heart rate stays fast.
 */
export function timeAxisChart(options: {
  series: readonly TimeSeries[];
  unit: string;
  bands?: readonly ValueBand[];
  /** Dashed horizontal reference lines. */
  lines?: ReadonlyArray<{ value: number; label: string }>;
  min?: number;
  max?: number;
  /**
   * `zero`: counts and durations (steps, hours asleep) start at 0, so a bar's height is its
   * value. `heart-rate`: bounds on whole tens of bpm around the data, ticks on whole bpm
   * (no 56.5 bpm). Otherwise the axis fits the data (decision 0171).
   */
  axis?: 'zero' | 'heart-rate';
}): EChartOption {
  const bandArea = options.bands?.length
    ? {
        silent: true,
        data: options.bands.map((band) => [
          {
            yAxis: band.from,
            itemStyle: { color: band.color },
            name: band.label,
            label: { position: 'insideLeft', color: '#555', fontSize: 10 },
          },
          { yAxis: band.to },
        ]),
      }
    : undefined;
  const lineMarks = options.lines?.length
    ? {
        silent: true,
        symbol: 'none',
        lineStyle: { type: 'dashed', color: '#888' },
        label: { formatter: '{b}', position: 'insideEndTop', fontSize: 10 },
        data: options.lines.map((line) => ({ yAxis: line.value, name: line.label })),
      }
    : undefined;
  return {
    animation: false,
    tooltip: { trigger: 'axis' },
    legend: { top: 0 },
    grid: { left: 56, right: 24, top: 36, bottom: 64 },
    xAxis: { type: 'time' },
    yAxis: valueAxis(options),
    dataZoom: [{ type: 'inside' }, { type: 'slider', height: 20, bottom: 12 }],
    series: options.series.map((series, index) => ({
      type: 'line',
      name: series.name,
      data: series.points.map(([at, value]) => [at, value]),
      showSymbol: series.symbolOnly ?? false,
      symbolSize: 6,
      lineStyle: {
        ...(series.symbolOnly ? { width: 1, opacity: 0.5 } : { width: 1.5 }),
        ...(series.color && { color: series.color }),
      },
      ...(series.color && { itemStyle: { color: series.color } }),
      connectNulls: false,
      sampling: 'lttb',
      ...(index === 0 && bandArea && { markArea: bandArea }),
      ...(index === 0 && lineMarks && { markLine: lineMarks }),
    })),
  };
}

/** The value axis: the caller's bounds, else from zero, heart-rate bounds or fitted. */
export function valueAxis(options: {
  unit: string;
  min?: number;
  max?: number;
  axis?: 'zero' | 'heart-rate';
}): Record<string, unknown> {
  if (options.axis === 'zero') {
    return {
      type: 'value',
      name: options.unit,
      min: options.min ?? 0,
      max: options.max,
      scale: false,
    };
  }
  if (options.axis === 'heart-rate') {
    return {
      type: 'value',
      name: options.unit,
      min: options.min ?? ((extent: { min: number }) => heartRateBounds(extent).min),
      max: options.max ?? ((extent: { max: number }) => heartRateBounds(extent).max),
      minInterval: 1,
      scale: true,
    };
  }
  return {
    type: 'value',
    name: options.unit,
    min: options.min,
    max: options.max,
    scale: options.min === undefined,
  };
}

/** At least 5 bpm of room around the data, on whole tens (56–59 bpm → 50–70 bpm). */
export function heartRateBounds(extent: { min?: number; max?: number }): {
  min: number;
  max: number;
} {
  const low = extent.min ?? 60;
  const high = extent.max ?? low;
  return {
    min: Math.max(0, Math.floor((low - 5) / 10) * 10),
    max: Math.ceil((high + 5) / 10) * 10,
  };
}
