import type { ComponentType } from 'react';
import Skeleton from '@mui/material/Skeleton';
import { moduleLoader, useModuleLoaded } from '@/lib/module-loader';
import type { EChartCanvasProps } from './echart-canvas';

// Not React.lazy: its Suspense fallback kept every first chart of a page load a skeleton
// for ~0.3 s after ECharts had arrived (decision 0282).
let LoadedCanvas: ComponentType<EChartCanvasProps> | null = null;
const echartCanvasModule = moduleLoader(
  () => import('./echart-canvas'),
  (module) => {
    LoadedCanvas = module.default;
  },
);

/**
 * A chart drawn by Apache ECharts (DESIGN.md), loaded on first use: pages that draw no
 * chart never download ECharts. Give it an `option` (memoised: a new object redraws) and a
 * height; the width follows the container.
 */
export function EChart(props: EChartCanvasProps) {
  const loaded = useModuleLoaded(echartCanvasModule);
  if (!loaded || !LoadedCanvas) {
    return (
      <Skeleton
        variant="rectangular"
        height={props.height}
        data-testid={props.testId && `${props.testId}-loading`}
      />
    );
  }
  return <LoadedCanvas {...props} />;
}
