import type { ReactElement } from 'react';
import { render } from '@testing-library/react';
import { QueryClient } from '@tanstack/react-query';
import { createMemoryRouter, parsePath, RouterProvider, type RouteObject } from 'react-router';
import { AppProviders } from '@/app/providers';
import { createAppRoutes } from '@/app/router';

export function createTestQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: false, gcTime: Infinity }, mutations: { retry: false } },
  });
}

/** The whole app (guard, layouts, pages) at `path`, in memory. Mock `fetch` first. */
export function renderApp(path: string, options: { state?: unknown } = {}) {
  const router = createMemoryRouter(createAppRoutes(), {
    initialEntries: [{ ...parsePath(path), state: options.state }],
  });
  const result = render(
    <AppProviders queryClient={createTestQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, router };
}

/** One component inside the providers and a memory router, plus a probe route per path. */
export function renderWithProviders(
  element: ReactElement,
  options: { path?: string; routes?: RouteObject[] } = {},
) {
  const path = options.path ?? '/';
  const router = createMemoryRouter(
    [{ path, element }, ...(options.routes ?? []), { path: '*', element: <LocationProbe /> }],
    { initialEntries: [path] },
  );
  const result = render(
    <AppProviders queryClient={createTestQueryClient()}>
      <RouterProvider router={router} />
    </AppProviders>,
  );
  return { ...result, router };
}

function LocationProbe() {
  return <div data-testid="location-probe" />;
}
