import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';

export function getAppVersion(): Promise<{ version: string }> {
  return api.get<{ version: string }>('/appVersion');
}

/** The server's version for the footer; `undefined` while loading or when it is unknown. */
export function useAppVersion(): string | undefined {
  const query = useQuery({
    queryKey: ['app-version'],
    queryFn: getAppVersion,
    staleTime: Infinity,
    retry: false,
  });
  const version = query.data?.version;
  return typeof version === 'string' && version !== '' ? version : undefined;
}
