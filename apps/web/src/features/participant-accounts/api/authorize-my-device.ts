import { useMutation } from '@tanstack/react-query';
import { authorizeUrlResponseSchema, type DeviceBrandName } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

export type MyDeviceRequest = { participantId: number; brand: DeviceBrandName };

/**
 * `POST /api/Participants/me/deviceAuthorization` {participantId, brand}: the provider
 * consent address for one of the participant's own enrolments; the browser goes there.
 */
export async function authorizeMyDevice(input: MyDeviceRequest): Promise<string> {
  const answer = await api.post<unknown>('/Participants/me/deviceAuthorization', input);
  return authorizeUrlResponseSchema.parse(answer).authorizeUrl;
}

export function useAuthorizeMyDevice() {
  return useMutation({ mutationFn: authorizeMyDevice });
}
