/**
 * The part of Apache ECharts TrialPulse uses, registered once (tree-shaken: line, bar and
 * the components the data pages need, canvas rendering). Only `echart-canvas.tsx` imports
 * this file, and only through the lazy `EChart`, so ECharts loads with the data routes and
 * never with the login page.
 */
import * as echarts from 'echarts/core';
import { BarChart, LineChart, ScatterChart } from 'echarts/charts';
import {
  AriaComponent,
  DataZoomComponent,
  GridComponent,
  LegendComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  TooltipComponent,
} from 'echarts/components';
import { CanvasRenderer } from 'echarts/renderers';

echarts.use([
  AriaComponent,
  LineChart,
  BarChart,
  ScatterChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  DataZoomComponent,
  MarkAreaComponent,
  MarkLineComponent,
  TitleComponent,
  CanvasRenderer,
]);

export { echarts };
