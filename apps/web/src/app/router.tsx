import type { RouteObject } from 'react-router';
import { ROUTES, type RouteEntry, type RoutePath } from '@trialpulse/shared';
import { FullPageLoader } from '@/components/ui/full-page-loader';
import { RouteGuard } from './route-guard';
import { NotAuthorizedPage } from './routes/not-authorized';
import { PlaceholderPage } from './routes/placeholder';
import { RouteErrorPage } from './routes/route-error';

type PageRoute = Pick<RouteObject, 'element' | 'lazy'>;

/** The pages built so far; every other path of the route table renders a placeholder. */
const PAGES: Partial<Record<RoutePath, PageRoute>> = {
  '/': {
    lazy: async () => ({
      Component: (await import('@/features/dashboard/pages/dashboard-page')).DashboardPage,
    }),
  },
  '/LoginPage': {
    lazy: async () => ({
      Component: (await import('@/features/auth/pages/login-page')).LoginPage,
    }),
  },
  '/not-authorized': { element: <NotAuthorizedPage /> },
};

/**
 * One route per entry of the shared route table plus the catch-all, all under the guard,
 * which also renders the 404 page for paths the table does not know.
 */
export function createAppRoutes(): RouteObject[] {
  return [
    {
      element: <RouteGuard />,
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <FullPageLoader />,
      children: [
        ...(ROUTES as readonly RouteEntry[]).map((route): RouteObject => ({
          path: route.path,
          caseSensitive: true,
          ...(PAGES[route.path as RoutePath] ?? {
            element: <PlaceholderPage title={route.title} path={route.path} />,
          }),
        })),
        { path: '*', element: null },
      ],
    },
  ];
}
