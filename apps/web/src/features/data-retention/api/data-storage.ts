import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  storageDeviceSchema,
  storageMetricSchema,
  storageSelectionSchema,
  storedReadingsSchema,
  teamRetentionSchema,
  type AddStorageMetric,
} from '@trialpulse/shared';
import { api, isApiError } from '@/lib/api-client';

/**
 * The retention page's calls (device-data spec §7 "Team data retention"), Sys_Admin and
 * Admin, for the selected team.
 */
const base = (teamId: number) => `/dataStorageService/team/${teamId}`;
const selectionsKey = (teamId: number | null, deviceType: string | null) =>
  ['data-retention', 'selections', teamId, deviceType] as const;

export function useStorageDevices(teamId: number | null) {
  return useQuery({
    queryKey: ['data-retention', 'devices', teamId],
    queryFn: async () =>
      z.array(storageDeviceSchema).parse(await api.get<unknown>(`${base(teamId!)}/devices`)),
    enabled: teamId !== null,
  });
}

export function useTeamRetention(teamId: number | null) {
  return useQuery({
    queryKey: ['data-retention', 'retention', teamId],
    queryFn: async () =>
      teamRetentionSchema.parse(await api.get<unknown>(`${base(teamId!)}/retention`)),
    enabled: teamId !== null,
  });
}

export function useStorageMetrics(deviceType: string | null) {
  return useQuery({
    queryKey: ['data-retention', 'metrics', deviceType],
    queryFn: async () =>
      z
        .array(storageMetricSchema)
        .parse(
          await api.get<unknown>(`/dataStorageService/metrics/${encodeURIComponent(deviceType!)}`),
        ),
    enabled: deviceType !== null,
  });
}

/** A 404 or 'not found' on selections is an empty list (§4). */
export function useSelections(teamId: number | null, deviceType: string | null) {
  return useQuery({
    queryKey: selectionsKey(teamId, deviceType),
    queryFn: async () => {
      try {
        return z
          .array(storageSelectionSchema)
          .parse(
            await api.get<unknown>(
              `${base(teamId!)}/device/${encodeURIComponent(deviceType!)}/selections`,
            ),
          );
      } catch (error) {
        if (isApiError(error) && (error.status === 404 || /not found/i.test(error.message)))
          return [];
        throw error;
      }
    },
    enabled: teamId !== null && deviceType !== null,
  });
}

/** Beyond the spec: stored readings of a metric the next purge deletes once it is removed. */
export async function getStoredReadings(teamId: number, deviceType: string, metricKey: string) {
  return storedReadingsSchema.parse(
    await api.get<unknown>(
      `${base(teamId)}/device/${encodeURIComponent(deviceType)}/metric/${encodeURIComponent(metricKey)}/storedReadings`,
    ),
  ).stored_readings;
}

/** Saves the differences one by one: adds first, then removals; then reloads selections (§4). */
export function useSaveSelections() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({
      teamId,
      deviceType,
      adds,
      removals,
    }: {
      teamId: number;
      deviceType: string;
      adds: AddStorageMetric[];
      removals: string[];
    }) => {
      const url = `${base(teamId)}/device/${encodeURIComponent(deviceType)}/metric`;
      for (const metric of adds) await api.post(url, metric);
      for (const key of removals) await api.delete(`${url}/${encodeURIComponent(key)}`);
    },
    onSettled: (_answer, _error, variables) =>
      queryClient.invalidateQueries({
        queryKey: selectionsKey(variables.teamId, variables.deviceType),
      }),
  });
}
