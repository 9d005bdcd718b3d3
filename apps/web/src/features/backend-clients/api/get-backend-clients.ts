import { useQuery } from '@tanstack/react-query';
import {
  backendClientListSchema,
  smartConfigurationSchema,
  type BackendClient,
  type SmartConfiguration,
} from '@trialpulse/shared/backend-clients/backend-clients.schemas';
import { api } from '@/lib/api-client';

export const backendClientsQueryKey = ['backend-clients'] as const;

/** `GET /api/backendClients` (Sys_Admin, Admin): the selected team's clients, newest first. */
export async function getBackendClients(): Promise<BackendClient[]> {
  return backendClientListSchema.parse(await api.get<unknown>('/backendClients'));
}

export function useBackendClients() {
  return useQuery({ queryKey: backendClientsQueryKey, queryFn: getBackendClients });
}

/**
 * `GET /fhir/.well-known/smart-configuration` (public): the token endpoint a pipeline is
 * configured with, as the server names it (its public URL).
 */
export async function getSmartConfiguration(): Promise<SmartConfiguration> {
  const response = await fetch('/fhir/.well-known/smart-configuration', {
    headers: { accept: 'application/json' },
  });
  if (!response.ok) throw new Error(`SMART configuration: ${response.status}`);
  return smartConfigurationSchema.parse(await response.json());
}

export function useSmartConfiguration() {
  return useQuery({
    queryKey: ['smart-configuration'],
    queryFn: getSmartConfiguration,
    staleTime: Infinity,
    retry: false,
  });
}
