import { useEffect, useState, type ComponentType, type ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { PATHS, decideRouteAccess } from '@trialpulse/shared';
import { SimpleLayout } from '@/components/layouts/simple-layout';
import { FullPageLoader } from '@/components/ui/full-page-loader';
import { isFullySignedIn, useSession } from '@/lib/session';
import { NoRolePage } from './routes/no-role';
import { NotFoundPage } from './routes/not-found';

// The staff layout (navbar, menus, profile) loads only once someone is signed in, so the
// sign-in pages do not carry it (issue 14: the login route's JavaScript).
let LoadedAppLayout: ComponentType<{ children: ReactNode }> | null = null;
let appLayoutLoading: Promise<void> | null = null;
function loadAppLayout(): Promise<void> {
  appLayoutLoading ??= import('@/components/layouts/app-layout').then(
    (module) => {
      LoadedAppLayout = module.AppLayout;
    },
    (error: unknown) => {
      appLayoutLoading = null; // a chunk that failed to load is asked for again next time
      throw error;
    },
  );
  return appLayoutLoading;
}

/**
 * Whether the staff layout's module has loaded; starts loading it. Not React.lazy: a lazy
 * component suspends, and React holds back what replaces a Suspense fallback until 300 ms
 * after that fallback appeared, so every signed-in page load waited ~0.3 s with nothing
 * left to load (decision 0282). A state update shows the page as soon as the module is in.
 */
function useAppLayoutLoaded(): boolean {
  const [loaded, setLoaded] = useState(() => LoadedAppLayout !== null);
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => {
    if (loaded) return;
    let current = true;
    loadAppLayout().then(
      () => current && setLoaded(true),
      (error: unknown) => current && setFailure(error),
    );
    return () => {
      current = false;
    };
  }, [loaded]);
  // As a lazy component's failed load did: the route's error page shows it.
  if (failure) throw failure;
  return loaded;
}

function AppLayout({ children }: { children: ReactNode }) {
  const loaded = useAppLayoutLoaded();
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
