import type { QueryClient } from '@tanstack/react-query';
import type { DeviceBrandName } from '@trialpulse/shared';
import { deviceConnectionsQueryKey } from './get-device-connections';
import { participantConnectionsQueryKey } from './get-participant-connections';

/** After a token action: the participant's connections, its devices and the team list. */
export function invalidateDeviceQueries(
  queryClient: QueryClient,
  brand: DeviceBrandName,
  participantId: number,
): Promise<unknown> {
  return Promise.all([
    queryClient.invalidateQueries({ queryKey: participantConnectionsQueryKey(participantId) }),
    queryClient.invalidateQueries({ queryKey: deviceConnectionsQueryKey(brand) }),
    queryClient.invalidateQueries({ queryKey: ['participant-devices', brand, participantId] }),
  ]);
}
