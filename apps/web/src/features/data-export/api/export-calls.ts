import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import {
  LIMITS,
  exportDeviceSchema,
  exportJobsResponseSchema,
  exportMetricSchema,
  exportParticipantSchema,
  exportTrialSchema,
  type ExportRequestInput,
} from '@trialpulse/shared';
import { API_BASE, api } from '@/lib/api-client';

/**
 * The eight batch-export calls (device-data spec §7), each a fetcher with its query or
 * mutation hook. Paths are the spec's; the server checks every rule again.
 */

const keys = {
  trials: ['dataExport', 'trials'] as const,
  devices: ['dataExport', 'devices'] as const,
  participants: (trialId: number | null, deviceId: number | null) =>
    ['dataExport', 'participants', trialId, deviceId] as const,
  metrics: (deviceId: number | null) => ['dataExport', 'metrics', deviceId] as const,
  jobs: ['dataExport', 'jobs'] as const,
};

/** `GET /api/dataExport/trials` */
export const getExportTrials = async () =>
  z.array(exportTrialSchema).parse(await api.get<unknown>('/dataExport/trials'));
export const useExportTrials = () => useQuery({ queryKey: keys.trials, queryFn: getExportTrials });

/** `GET /api/dataExport/devices` */
export const getExportDevices = async () =>
  z.array(exportDeviceSchema).parse(await api.get<unknown>('/dataExport/devices'));
export const useExportDevices = () =>
  useQuery({ queryKey: keys.devices, queryFn: getExportDevices });

/** `GET /api/dataExport/trials/{trialId}/participants/{deviceId}` */
export const getExportParticipants = async (trialId: number, deviceId: number) =>
  z
    .array(exportParticipantSchema)
    .parse(await api.get<unknown>(`/dataExport/trials/${trialId}/participants/${deviceId}`));
export const useExportParticipants = (trialId: number | null, deviceId: number | null) =>
  useQuery({
    queryKey: keys.participants(trialId, deviceId),
    queryFn: () => getExportParticipants(trialId!, deviceId!),
    enabled: trialId !== null && deviceId !== null,
  });

/** `GET /api/dataExport/metrics/{deviceId}` */
export const getExportMetrics = async (deviceId: number) =>
  z.array(exportMetricSchema).parse(await api.get<unknown>(`/dataExport/metrics/${deviceId}`));
export const useExportMetrics = (deviceId: number | null) =>
  useQuery({
    queryKey: keys.metrics(deviceId),
    queryFn: () => getExportMetrics(deviceId!),
    enabled: deviceId !== null,
  });

/** The most jobs the call lists (`limit` ≤ 50): My Exports pages through the latest 50. */
export const EXPORT_JOBS_MAX = 50;

/**
 * `GET /api/dataExport/jobs?limit=10`: polled every 10000 ms while the panel is open (§9).
 * Page `page` (10 jobs a page) asks for the latest `10 × (page + 1)` (decision 0194).
 */
export const getExportJobs = async (limit: number = LIMITS.exportJobsListLimit) =>
  exportJobsResponseSchema.parse(await api.get<unknown>('/dataExport/jobs', { query: { limit } }));
export const useExportJobs = (open: boolean, page = 0) => {
  const limit = Math.min(EXPORT_JOBS_MAX, LIMITS.exportJobsListLimit * (page + 1));
  return useQuery({
    queryKey: [...keys.jobs, limit],
    queryFn: () => getExportJobs(limit),
    enabled: open,
    refetchInterval: open ? LIMITS.exportJobsPollMs : false,
    placeholderData: keepPreviousData,
  });
};

/** `POST /api/dataExport/batchDataExport` */
export const createExport = (request: ExportRequestInput) =>
  api.post<{ success: true; message: string; jobId: number }>(
    '/dataExport/batchDataExport',
    request,
  );
export function useCreateExport() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createExport,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keys.jobs }),
  });
}

/** `DELETE /api/dataExport/jobs/{id}`: deletes a finished job, cancels a running one. */
export const deleteExportJob = (id: number) =>
  api.delete<{ success: true; message: string }>(`/dataExport/jobs/${id}`);
export function useDeleteExportJob() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteExportJob,
    onSettled: () => queryClient.invalidateQueries({ queryKey: keys.jobs }),
  });
}

/**
 * `GET /api/dataExport/jobs/{id}/download`, opened in a new tab (§7): the session cookie
 * authenticates it, so the URL carries no token.
 */
export function downloadExportUrl(id: number): string {
  return `${API_BASE}/dataExport/jobs/${id}/download`;
}
