import { useMutation } from '@tanstack/react-query';
import {
  authorizeUrlResponseSchema,
  staffAuthorizeSchema,
  type StaffAuthorizeRequest,
} from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export const authorizeDeviceInputSchema = staffAuthorizeSchema;
export type AuthorizeDeviceInput = StaffAuthorizeRequest;

/**
 * Staff `POST /api/deviceAuthorization`: the provider's consent URL for a participant who
 * is present and signs in to the provider on this computer.
 */
export async function authorizeDevice(input: AuthorizeDeviceInput): Promise<string> {
  const answer = await api.post<unknown>('/deviceAuthorization', input);
  return authorizeUrlResponseSchema.parse(answer).authorizeUrl;
}

export function useAuthorizeDevice() {
  return useMutation({ mutationFn: authorizeDevice });
}
