import { createContext, useContext, type ReactNode } from 'react';

export type ChartRenderer = 'canvas' | 'svg';

const ChartRendererContext = createContext<ChartRenderer>('canvas');

/**
 * The renderer of the charts below: canvas by default (fast with large series); `svg` where
 * a page is printed (the printable report, decision 0165): vector lines and text that stay
 * sharp on paper and in a PDF, drawn before the print dialog opens.
 */
export function ChartRendererProvider({
  renderer,
  children,
}: {
  renderer: ChartRenderer;
  children: ReactNode;
}) {
  return <ChartRendererContext.Provider value={renderer}>{children}</ChartRendererContext.Provider>;
}

export function useChartRenderer(): ChartRenderer {
  return useContext(ChartRendererContext);
}
