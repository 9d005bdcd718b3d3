import { useState } from 'react';
import { createBrowserRouter } from 'react-router';
import { RouterProvider } from 'react-router/dom';
import { AppProviders } from './providers';
import { createAppRoutes } from './router';

export function App() {
  const [router] = useState(() => createBrowserRouter(createAppRoutes()));
  return (
    <AppProviders>
      <RouterProvider router={router} />
    </AppProviders>
  );
}
