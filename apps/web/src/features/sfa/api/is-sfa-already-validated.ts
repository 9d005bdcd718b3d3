import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import { readSfaResult } from './sfa-result';

/**
 * `GET /api/auth/isSfaAlreadyValidated`: whether this session passed the second factor.
 * The spec writes the path with a double slash; the server answers both spellings and the
 * single one survives proxies that merge slashes.
 */
export async function isSfaAlreadyValidated(): Promise<boolean> {
  return readSfaResult(await api.get<unknown>('/auth/isSfaAlreadyValidated')).success;
}

export function useIsSfaAlreadyValidated({ enabled = true }: { enabled?: boolean } = {}) {
  return useQuery({
    enabled,
    queryKey: ['sfa', 'is-validated'],
    queryFn: isSfaAlreadyValidated,
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });
}
