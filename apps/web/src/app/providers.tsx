import { useState, type ReactNode } from 'react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import CssBaseline from '@mui/material/CssBaseline';
import { ThemeProvider } from '@mui/material/styles';
import { NotificationsProvider } from '@/components/notifications';
import { isApiError } from '@/lib/api-client';
import { SessionProvider } from '@/lib/session';
import { theme } from './theme';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx answer will not change on retry; network trouble and 5xx may.
        retry: (failureCount, error) =>
          failureCount < 2 && !(isApiError(error) && error.status >= 400 && error.status < 500),
        refetchOnWindowFocus: false,
        staleTime: 30_000,
      },
      mutations: { retry: false },
    },
  });
}

type AppProvidersProps = { children: ReactNode; queryClient?: QueryClient };

export function AppProviders({ children, queryClient }: AppProvidersProps) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {/* No date LocalizationProvider here: it would put dayjs and the pickers on every
          page, the login page too. A page with a date picker wraps itself in one. */}
      <QueryClientProvider client={client}>
        <NotificationsProvider>
          <SessionProvider>{children}</SessionProvider>
        </NotificationsProvider>
      </QueryClientProvider>
    </ThemeProvider>
  );
}
