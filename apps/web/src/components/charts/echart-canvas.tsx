import { useEffect, useRef } from 'react';
import Box from '@mui/material/Box';
import type { EChartOption } from './echart-option';
import { SVGRenderer } from 'echarts/renderers';
import { echarts } from './echarts-runtime';
import { useChartRenderer } from './chart-renderer';

// Printed pages draw SVG (chart-renderer.tsx); registered with the chart, never on the login route.
echarts.use([SVGRenderer]);

export type EChartCanvasProps = {
  option: EChartOption;
  height: number;
  testId?: string;
  ariaLabel: string;
  /** Called with the instance once created (a page that reads what was drawn, e.g. a point count). */
  onChart?: (instance: echarts.ECharts) => void;
};

/**
 * One ECharts instance on a div: created on mount, given each new option (not merged, so
 * removed series disappear), resized with its box, disposed on unmount; canvas unless a
 * `ChartRendererProvider` above asks for SVG. `data-chart-ready` turns true once a frame
 * is drawn (browser tests wait for it).
 */
export default function EChartCanvas({
  option,
  height,
  testId,
  ariaLabel,
  onChart,
}: EChartCanvasProps) {
  const element = useRef<HTMLDivElement>(null);
  const chart = useRef<echarts.ECharts | null>(null);
  const onChartRef = useRef(onChart);
  const renderer = useChartRenderer();

  useEffect(() => {
    const node = element.current;
    if (!node) return;
    const instance = echarts.init(node, undefined, { renderer });
    chart.current = instance;
    instance.on('finished', () => node.setAttribute('data-chart-ready', 'true'));
    onChartRef.current?.(instance);
    const observer = new ResizeObserver(() => instance.resize());
    observer.observe(node);
    return () => {
      observer.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }, [renderer]);

  useEffect(() => {
    chart.current?.setOption(option, { notMerge: true });
  }, [option]);

  return (
    <Box
      ref={element}
      role="img"
      aria-label={ariaLabel}
      data-testid={testId}
      data-chart-ready="false"
      sx={{ width: '100%', height }}
    />
  );
}
