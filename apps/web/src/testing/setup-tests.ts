import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import { resetCsrfToken } from '@/lib/api-client';

// Lazy pages load on first use; a cold module graph on a busy CI machine takes a while, and
// with a second CI run beside this one a render took 8–10× its time alone (decision 0274).
// A budget against hanging, not a speed check.
configure({ asyncUtilTimeout: 60_000 });

// jsdom cannot draw: it has no canvas context and no ResizeObserver, so ECharts' drawing
// surface is a plain labelled box here (what a chart draws is checked in the browser tests;
// the options it is given are unit-tested as data). Without this a chart that finishes
// loading after its test ended would throw in the next test file sharing the module graph.
vi.mock('@/components/charts/echart-canvas', async () => {
  const { createElement } = await import('react');
  return {
    default: (props: { ariaLabel: string; height: number; testId?: string }) =>
      createElement('div', {
        role: 'img',
        'aria-label': props.ariaLabel,
        'data-testid': props.testId,
        style: { height: props.height },
      }),
  };
});

// Test files share one module graph and one jsdom window per worker (isolate: false in
// vite.config.ts), so everything a test can leave behind is reset after each test.
afterEach(() => {
  cleanup();
  resetCsrfToken();
  localStorage.clear();
  sessionStorage.clear();
  vi.useRealTimers();
});
