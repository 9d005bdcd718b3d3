import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  backendClientMessageSchema,
  registerBackendClientInputSchema,
  type RegisterBackendClientInput,
  type RegisterBackendClientValues,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import type { z } from 'zod';
import { api } from '@/lib/api-client';
import { backendClientsQueryKey } from './get-backend-clients';

export { registerBackendClientInputSchema };
export type { RegisterBackendClientInput, RegisterBackendClientValues };
export type RegisterBackendClientAnswer = z.infer<typeof backendClientMessageSchema>;

/**
 * `POST /api/backendClients` (Sys_Admin, Admin): registers a client for the selected team;
 * the answer carries its client id. A key the server cannot use answers 400 with the
 * `publicKey` field's message.
 */
export async function registerBackendClient(
  input: RegisterBackendClientValues,
): Promise<RegisterBackendClientAnswer> {
  return backendClientMessageSchema.parse(await api.post<unknown>('/backendClients', input));
}

export function useRegisterBackendClient() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: registerBackendClient,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: backendClientsQueryKey }),
  });
}
