export { EChart } from './echart';
export type { EChartOption } from './echart-option';
export { timeAxisChart, type TimeSeries } from './time-axis-chart';
export { ChartRendererProvider, useChartRenderer, type ChartRenderer } from './chart-renderer';
