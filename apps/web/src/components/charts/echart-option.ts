import type { EChartsCoreOption } from 'echarts/core';

/** An ECharts option object (type only: importing it does not load ECharts). */
export type EChartOption = EChartsCoreOption;
