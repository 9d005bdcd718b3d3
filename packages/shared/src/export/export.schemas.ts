import { z } from 'zod';
import { isCalendarDate } from '../dates';
import { LIMITS } from '../limits';

/**
 * Batch data export (device-data spec §2, §3 export device / metric / job / request, §4,
 * §5, §7, §8, §9). The server checks the request with the same schema and messages.
 */

export const EXPORT_MESSAGES = {
  // §5 (texts given by the spec)
  participantRequired: 'Please select at least one participant.',
  datesRequired: 'Please select both start and end dates.',
  startAfterEnd: 'Start date must be on or before end date.',
  rangeTooLong: 'Date range cannot exceed 1 year.',
  metricRequired: 'Please select at least one metric.',
  fileNameRequired: 'Please enter a file name.',
  // §5 rules without a text in the spec (decision 0045)
  trialRequired: 'Please select a trial.',
  deviceRequired: 'Please select a device.',
  startTooEarly: 'Start date cannot be earlier than one year ago.',
  endInFuture: 'End date cannot be in the future.',
  fileNameTooLong: 'File name can not be more than 100 characters.',
  // §8
  createFailed: 'Failed to create export job',
  serverError: (status: number) => `Server error (${status}). Please try again or contact support.`,
  endpointNotFound: 'Export endpoint not found. Please refresh the page and try again.',
  authError: 'Authentication error. Please log in again.',
  unreachable: 'Unable to connect to server. Please ensure the server is running and try again.',
  loadFailed: (what: 'trials' | 'devices' | 'participants' | 'metrics') =>
    `Failed to load ${what}. Please try again.`,
  // Answers of our own (the spec leaves them "not shown")
  created: 'Export job created. You can follow it in My Exports.',
  deleted: 'The export has been deleted.',
  cancelled: 'The export has been cancelled.',
  jobNotFound: 'Export not found.',
  notReady: 'This export is not ready for download.',
  expired: 'This export has expired. Please create it again.',
  unknownParticipants:
    'Some selected participants are not in this trial or have no data of this device.',
  unknownMetrics: 'Some selected metrics are not available for this device.',
  /** A metric the team does not store: offered disabled, refused by the server (issue 28). */
  metricNotStored:
    'Not stored for your team: enable it in the data storage settings to collect it.',
  metricsNotStored: (names: string) =>
    `Not stored for your team, so the export would have no rows of them: ${names}. Choose stored metrics, or enable them in the data storage settings.`,
  failedGeneric: 'The export failed. Please try again.',
  cancelledByUser: 'Cancelled by the user.',
} as const;

/** The product name every export file name starts with (§9). */
export const EXPORT_PRODUCT_NAME = 'TrialPulse';

export const EXPORT_MODES = ['separate-tabs', 'single-tab'] as const;
export type ExportMode = (typeof EXPORT_MODES)[number];
/** Data formats; Parquet writes one file per metric whatever the mode (decision 0250). */
export const EXPORT_FORMATS = ['csv', 'xlsx', 'parquet'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
/** Optional files beside the data (beyond the spec, decision 0046). */
export const EXPORT_EXTRAS = ['openmhealth', 'fhir', 'adherence'] as const;
export type ExportExtra = (typeof EXPORT_EXTRAS)[number];
export const EXPORT_STATUSES = ['pending', 'processing', 'completed', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Date arithmetic on calendar dates (YYYY-MM-DD), in UTC so no time zone shifts them. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  // 29 February + 1 year → 28 February (never 1 March).
  const target = new Date(Date.UTC(y + years, m - 1, 1));
  const lastDay = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  target.setUTCDate(Math.min(d, lastDay));
  return target.toISOString().slice(0, 10);
}

/** Today's calendar date where the caller is (local time), YYYY-MM-DD. */
export function localToday(now: Date = new Date()): string {
  const local = new Date(now.getTime() - now.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 10);
}

/**
 * The dates a request may use: `today` is the latest allowed end date; the start may not
 * be earlier than `today` minus one year. The web uses the browser's today; the server
 * the latest date anywhere on earth (UTC+14) so no user's "today" is refused.
 */
export type ExportDateBounds = { today: string };

const looseId = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z.union([z.number(), z.string()]).optional(),
);
const looseDate = z.preprocess(
  (value) => (value === '' || value === null ? undefined : value),
  z.string().optional(),
);

/** A positive database id from a number or numeric text, else undefined. */
function toId(value: number | string | undefined): number | undefined {
  const n = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value;
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0 && n <= 2_147_483_647
    ? n
    : undefined;
}

/**
 * The export request (§3) with every §5 rule. The rules run in the spec's order in one
 * place, so the first message is the one the page shows and the server answers with.
 * `bounds` is read when a request is checked (never frozen at start-up).
 */
export function makeExportRequestSchema(bounds: () => ExportDateBounds) {
  return z
    .object({
      trialId: looseId,
      deviceId: looseId,
      participantIds: z
        .array(z.union([z.number(), z.string()]))
        .max(1000)
        .optional(),
      startDate: looseDate,
      endDate: looseDate,
      metrics: z.array(z.string().min(1).max(64)).max(100).optional(),
      fileName: z.string().optional(),
      exportMode: z.enum(EXPORT_MODES).default('separate-tabs'),
      format: z.enum(EXPORT_FORMATS).default('csv'),
      extras: z.array(z.enum(EXPORT_EXTRAS)).max(EXPORT_EXTRAS.length).default([]),
    })
    .superRefine((request, ctx) => {
      const issue = (path: string, message: string) =>
        ctx.addIssue({ code: 'custom', path: [path], message });
      if (toId(request.trialId) === undefined) issue('trialId', EXPORT_MESSAGES.trialRequired);
      if (toId(request.deviceId) === undefined) issue('deviceId', EXPORT_MESSAGES.deviceRequired);
      const participants = request.participantIds ?? [];
      if (participants.length === 0 || participants.some((id) => toId(id) === undefined)) {
        issue('participantIds', EXPORT_MESSAGES.participantRequired);
      }
      const { startDate, endDate } = request;
      if (!startDate || !endDate || !isCalendarDate(startDate) || !isCalendarDate(endDate)) {
        issue(
          startDate && isCalendarDate(startDate) ? 'endDate' : 'startDate',
          EXPORT_MESSAGES.datesRequired,
        );
      } else if (startDate > endDate) {
        issue('startDate', EXPORT_MESSAGES.startAfterEnd);
      } else if (endDate > addYears(startDate, 1)) {
        issue('endDate', EXPORT_MESSAGES.rangeTooLong);
      } else {
        const { today } = bounds();
        if (startDate < addYears(today, -1)) issue('startDate', EXPORT_MESSAGES.startTooEarly);
        if (endDate > today) issue('endDate', EXPORT_MESSAGES.endInFuture);
      }
      if ((request.metrics ?? []).length === 0) issue('metrics', EXPORT_MESSAGES.metricRequired);
      const fileName = (request.fileName ?? '').trim();
      if (fileName.length === 0) issue('fileName', EXPORT_MESSAGES.fileNameRequired);
      else if (fileName.length > 100) issue('fileName', EXPORT_MESSAGES.fileNameTooLong);
    })
    .transform((request) => ({
      trialId: toId(request.trialId)!,
      deviceId: toId(request.deviceId)!,
      participantIds: [...new Set((request.participantIds ?? []).map((id) => toId(id)!))],
      startDate: request.startDate!,
      endDate: request.endDate!,
      metrics: [...new Set(request.metrics ?? [])],
      fileName: (request.fileName ?? '').trim(),
      exportMode: request.exportMode,
      format: request.format,
      extras: [...new Set(request.extras)],
    }));
}

export type ExportRequestInput = z.input<ReturnType<typeof makeExportRequestSchema>>;
export type ExportRequest = z.output<ReturnType<typeof makeExportRequestSchema>>;

/** The §5 rules as a list of messages, in order (what the page shows before sending). */
export function exportRequestMessages(input: unknown, bounds: ExportDateBounds): string[] {
  const parsed = makeExportRequestSchema(() => bounds).safeParse(input);
  return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
}

export const exportTrialSchema = z.object({
  trialId: z.number().int(),
  trialName: z.string(),
  trialNumber: z.string(),
});
export type ExportTrial = z.infer<typeof exportTrialSchema>;

/** Export device (§3): id, friendlyName. */
export const exportDeviceSchema = z.object({
  id: z.number().int(),
  friendlyName: z.string(),
  brand: z.string(),
  deviceType: z.string().nullable(),
});
export type ExportDevice = z.infer<typeof exportDeviceSchema>;

export const exportParticipantSchema = z.object({
  participantId: z.number().int(),
  participantCode: z.string(),
});
export type ExportParticipant = z.infer<typeof exportParticipantSchema>;

/** Export metric (§3): metric_key, metric_name, category. */
export const exportMetricSchema = z.object({
  metric_key: z.string(),
  metric_name: z.string(),
  category: z.string().nullable(),
  units: z.string().nullable(),
  /** Whether the team stores it (enabled in both settings layers); false: offered disabled. */
  stored: z.boolean().optional(),
});
export type ExportMetric = z.infer<typeof exportMetricSchema>;

/** Export job (§3): id, status, job_params, created_at, file_size, error_message; plus progress. */
export const exportJobSchema = z.object({
  id: z.number().int(),
  status: z.enum(EXPORT_STATUSES),
  job_params: z.object({
    fileName: z.string(),
    startDate: z.string(),
    endDate: z.string(),
    participantIds: z.array(z.number().int()),
    metrics: z.array(z.string()),
    exportMode: z.enum(EXPORT_MODES),
    format: z.enum(EXPORT_FORMATS),
    extras: z.array(z.enum(EXPORT_EXTRAS)),
  }),
  created_at: z.string(),
  file_size: z.number().nullable(),
  error_message: z.string().nullable(),
  progress: z.number().int().min(0).max(100),
  expires_at: z.string().nullable(),
});
export type ExportJob = z.infer<typeof exportJobSchema>;

export const exportJobsResponseSchema = z.object({
  success: z.literal(true),
  data: z.array(exportJobSchema),
  total: z.number().int(),
});

export const exportJobsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(50).default(LIMITS.exportJobsListLimit),
});

/** File size in B, KB or MB with one decimal (§9). */
export function formatFileSize(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '';
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/** A name safe in a file system and a Content-Disposition header: letters, digits, `-`, `_`, `.`. */
export function safeFileNamePart(name: string): string {
  const cleaned = name
    .normalize('NFKD')
    // The accents NFKD split off their letters are dropped: "Étude" → "Etude", not "E_tude".
    .replace(/\p{M}+/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .replace(/^[._]+|[._]+$/g, '')
    .slice(0, 100);
  return cleaned || 'export';
}

/** The ZIP a job produces: `TrialPulse-<name>-Data.zip`. */
export function exportZipName(fileName: string): string {
  return `${EXPORT_PRODUCT_NAME}-${safeFileNamePart(fileName)}-Data.zip`;
}
