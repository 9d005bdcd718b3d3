import { Suspense, lazy } from 'react';
import Skeleton from '@mui/material/Skeleton';
import type { EChartCanvasProps } from './echart-canvas';

const EChartCanvas = lazy(() => import('./echart-canvas'));

/**
 * A chart drawn by Apache ECharts (DESIGN.md), loaded on first use: pages that draw no
 * chart never download ECharts. Give it an `option` (memoised: a new object redraws) and a
 * height; the width follows the container.
 */
export function EChart(props: EChartCanvasProps) {
  return (
    <Suspense
      fallback={
        <Skeleton
          variant="rectangular"
          height={props.height}
          data-testid={props.testId && `${props.testId}-loading`}
        />
      }
    >
      <EChartCanvas {...props} />
    </Suspense>
  );
}
