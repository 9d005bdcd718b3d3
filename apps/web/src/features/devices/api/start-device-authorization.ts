import { useMutation } from '@tanstack/react-query';
import { authorizeUrlResponseSchema, type StaffAuthorizeRequest } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/**
 * `POST /api/deviceAuthorization` {participantId, brand} (Sys_Admin, Admin, User, with the
 * participant present): the provider consent address the browser is then sent to.
 */
export async function startDeviceAuthorization(input: StaffAuthorizeRequest): Promise<string> {
  const answer = await api.post<unknown>('/deviceAuthorization', input);
  return authorizeUrlResponseSchema.parse(answer).authorizeUrl;
}

export function useStartDeviceAuthorization() {
  return useMutation({ mutationFn: startDeviceAuthorization });
}
