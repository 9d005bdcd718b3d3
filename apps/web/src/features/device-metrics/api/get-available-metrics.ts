import { useQuery } from '@tanstack/react-query';
import { z } from 'zod';
import { availableMetricSchema, type AvailableMetric } from '@trialpulse/shared';
import { api } from '@/lib/api-client';

/** The path segment for a device without a type: every type's metrics (decision 0030). */
export const ALL_DEVICE_TYPES = 'all';

/** `GET /api/deviceSettings/enhanced/availableMetrics/{teamId}/{deviceId}/{deviceType}` (Sys_Admin). */
export async function getAvailableMetrics(
  teamId: number,
  deviceId: number,
  deviceType: string,
): Promise<AvailableMetric[]> {
  return z
    .array(availableMetricSchema)
    .parse(
      await api.get<unknown>(
        `/deviceSettings/enhanced/availableMetrics/${teamId}/${deviceId}/${encodeURIComponent(deviceType)}`,
      ),
    );
}

export function useAvailableMetrics(
  teamId: number | null,
  deviceId: number | null,
  deviceType: string,
) {
  return useQuery({
    queryKey: ['device-metrics', 'available', teamId, deviceId, deviceType],
    queryFn: () => getAvailableMetrics(teamId!, deviceId!, deviceType),
    enabled: teamId !== null && deviceId !== null,
  });
}
