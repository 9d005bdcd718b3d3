import { useMutation, useQueryClient } from '@tanstack/react-query';
import { tokenActionResponseSchema } from '@trialpulse/shared';
import { api } from '@/lib/api-client';
import { brandPath } from '../utils/paths';
import { invalidateDeviceQueries } from './invalidate-device-queries';
import { TokenActionFailedError, type DeviceTokenRequest } from './revoke-device-token';

export type { DeviceTokenRequest } from './revoke-device-token';

/**
 * `POST /api/{fitbit|omron|dexcom}RefreshToken` {id} (Sys_Admin, Admin, User). Success is
 * code 200 (device-data spec §7); any other code throws `TokenActionFailedError`.
 */
export async function refreshDeviceToken({
  brand,
  participantId,
}: DeviceTokenRequest): Promise<{ message: string }> {
  const answer = tokenActionResponseSchema.parse(
    await api.post<unknown>(`/${brandPath(brand)}RefreshToken`, { id: participantId }),
  );
  if (answer.code !== 200) throw new TokenActionFailedError(answer.message);
  return answer;
}

export function useRefreshDeviceToken() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refreshDeviceToken,
    onSettled: (_answer, _error, { brand, participantId }) =>
      invalidateDeviceQueries(queryClient, brand, participantId),
  });
}
