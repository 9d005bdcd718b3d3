import type { ComponentType, ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { PATHS, decideRouteAccess } from '@trialpulse/shared';
import { SimpleLayout } from '@/components/layouts/simple-layout';
import { FullPageLoader } from '@/components/ui/full-page-loader';
import { moduleLoader, useModuleLoaded } from '@/lib/module-loader';
import { isFullySignedIn, useSession } from '@/lib/session';
import { NoRolePage } from './routes/no-role';
import { NotFoundPage } from './routes/not-found';

// The staff layout (navbar, menus, profile) loads only once someone is signed in, so the
// sign-in pages do not carry it (issue 14: the login route's JavaScript). Not React.lazy:
// its Suspense fallback held every signed-in page load ~0.3 s (decision 0282).
let LoadedAppLayout: ComponentType<{ children: ReactNode }> | null = null;
const appLayoutModule = moduleLoader(
  () => import('@/components/layouts/app-layout'),
  (module) => {
    LoadedAppLayout = module.AppLayout;
  },
);

function AppLayout({ children }: { children: ReactNode }) {
  const loaded = useModuleLoaded(appLayoutModule);
  if (!loaded || !LoadedAppLayout) return <FullPageLoader />;
  return <LoadedAppLayout>{children}</LoadedAppLayout>;
}

/**
 * Wraps every route: waits for the session, asks the shared `decideRouteAccess` what to
 * do with this path and user, and renders the page inside the layout that fits the
 * session (staff layout once fully signed in, the simple one otherwise).
 */
export function RouteGuard() {
  const location = useLocation();
  const { isLoading, session, guardUser } = useSession();

  if (isLoading) return <FullPageLoader label="Loading session" />;

  const decision = decideRouteAccess(location.pathname, guardUser);
  const Layout = isFullySignedIn(session) ? AppLayout : SimpleLayout;

  switch (decision.kind) {
    case 'redirect':
      return (
        <Navigate
          replace
          to={decision.to}
          state={
            decision.to === PATHS.login
              ? {
                  from: location.pathname + location.search,
                  ...(session.status === 'signed-out' && session.notice
                    ? { message: session.notice }
                    : {}),
                }
              : undefined
          }
        />
      );
    case 'no-role':
      return (
        <SimpleLayout>
          <NoRolePage message={decision.message} />
        </SimpleLayout>
      );
    case 'not-found':
      return (
        <Layout>
          <NotFoundPage />
        </Layout>
      );
    case 'allow':
      return (
        <Layout>
          <Outlet />
        </Layout>
      );
  }
}
