import type { EChartOption } from '@/components/charts';
import { heartRateBounds } from '@/components/charts/time-axis-chart';
import type { IntradaySeries } from './intraday';

const HEART_COLOR = '#d32f2f';
const STEPS_COLOR = '#1976d2';

/**
 * One day at full resolution (decision 0068): heart rate (up to 86,400 points) as a line
 * and steps per minute as bars on a second axis, zoom and pan with the wheel, a drag and
 * the slider. Large-data settings: typed-array data, LTTB sampling to the pixel width,
 * no symbols or animation, progressive rendering of the bars.
 */
export function oneDayChart(heart: IntradaySeries, steps: IntradaySeries): EChartOption {
  return {
    animation: false,
    useUTC: true,
    tooltip: { trigger: 'axis', axisPointer: { type: 'line' } },
    legend: { top: 0 },
    grid: { left: 56, right: 56, top: 36, bottom: 72 },
    xAxis: { type: 'time' },
    yAxis: [
      // Whole-bpm ticks on whole tens around the day (decision 0171); steps/min from zero.
      {
        type: 'value',
        name: 'BPM',
        scale: true,
        minInterval: 1,
        min: (extent: { min: number }) => heartRateBounds(extent).min,
        max: (extent: { max: number }) => heartRateBounds(extent).max,
      },
      { type: 'value', name: 'steps/min', splitLine: { show: false } },
    ],
    dataZoom: [
      { type: 'inside', xAxisIndex: 0, filterMode: 'none', minValueSpan: 60_000 },
      {
        type: 'slider',
        xAxisIndex: 0,
        height: 22,
        bottom: 16,
        filterMode: 'none',
        minValueSpan: 60_000,
      },
    ],
    series: [
      {
        type: 'line',
        name: 'Heart rate',
        data: heart.xy,
        dimensions: ['time', 'bpm'],
        encode: { x: 0, y: 1 },
        showSymbol: false,
        symbol: 'none',
        sampling: 'lttb',
        large: true,
        largeThreshold: 2000,
        progressive: 0,
        lineStyle: { width: 1, color: HEART_COLOR },
        itemStyle: { color: HEART_COLOR },
        emphasis: { disabled: true },
      },
      {
        type: 'bar',
        name: 'Steps',
        yAxisIndex: 1,
        data: steps.xy,
        dimensions: ['time', 'steps'],
        encode: { x: 0, y: 1 },
        large: true,
        largeThreshold: 500,
        progressive: 5000,
        barWidth: 2,
        itemStyle: { color: STEPS_COLOR, opacity: 0.6 },
      },
    ],
  };
}
