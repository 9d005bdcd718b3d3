import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tokenActionResponseSchema, type DeviceBrandName } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { invalidateDeviceQueries } from './invalidate-device-queries';

export type DeviceTokenRequest = { brand: DeviceBrandName; participantId: number };

/** A token call the server answered with a code other than 200. */
export class TokenActionFailedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TokenActionFailedError';
  }
}

/**
 * Revokes the participant's access for a brand (Sys_Admin, Admin, User): Fitbit through
 * `GET /api/revokeAccessToken/{id}` (a GET that changes state, so it carries the CSRF
 * header), Omron and Dexcom through `POST /api/{omron|dexcom}RevokeToken` {id}. Success is
 * code 200; any other code throws `TokenActionFailedError`.
 */
export async function revokeDeviceToken({
  brand,
  participantId,
}: DeviceTokenRequest): Promise<{ message: string }> {
  const answer = tokenActionResponseSchema.parse(
    brand === 'Fitbit'
      ? await api.get<unknown>(`/revokeAccessToken/${participantId}`, { csrf: true })
      : await api.post<unknown>(`/${brand === 'Omron' ? 'omron' : 'dexcom'}RevokeToken`, {
          id: participantId,
        }),
  );
  if (answer.code !== 200) throw new TokenActionFailedError(answer.message);
  return answer;
}

export function useRevokeDeviceToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeDeviceToken,
    onSettled: (_answer, _error, { brand, participantId }) =>
      invalidateDeviceQueries(queryClient, brand, participantId),
  });
}
