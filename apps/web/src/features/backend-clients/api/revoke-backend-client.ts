import { useMutation, useQueryClient } from '@tanstack/react-query';
import { backendClientMessageSchema } from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { api } from '@/lib/api-client';
import { backendClientsQueryKey } from './get-backend-clients';

/**
 * `POST /api/backendClients/{id}/revoke` (Sys_Admin, Admin): the client gets no more tokens
 * and the tokens it holds stop at their next request.
 */
export async function revokeBackendClient(id: number) {
  return backendClientMessageSchema.parse(
    await api.post<unknown>(`/backendClients/${encodeURIComponent(id)}/revoke`),
  );
}

export function useRevokeBackendClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeBackendClient,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: backendClientsQueryKey }),
  });
}
