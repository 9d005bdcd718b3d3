import { z } from 'zod';
import { isCalendarDate, isCalendarDateTime } from '../dates';
import { DEVICE_BRANDS } from '../participants/participants.schemas';

/**
 * The Omron and Dexcom data calls (device-data §3, §5, §7, §9; decision 0055) and the
 * stored-readings lists of /ParticipantDataPage and the raw pages.
 */

/** Provider failures of the data calls (§8; the Omron and Dexcom texts follow Fitbit's, decision 0055). */
export const DEVICE_DATA_MESSAGES = {
  tooManyRequests: 'Too Many Requests',
  omronFailed: 'Error: could not get data from Omron server!',
  dexcomFailed: 'Error: could not get data from Dexcom server!',
  invalidDataFormat: 'Invalid data format received from server',
  noData: 'Could not find any data!',
} as const;
export const DEVICE_DATA_ERROR_REASONS = {
  rateLimited: 'PROVIDER_RATE_LIMITED',
  providerFailed: 'PROVIDER_FAILED',
  invalidResponse: 'PROVIDER_INVALID_RESPONSE',
} as const;

// --- Omron -------------------------------------------------------------------------------

/** `queryStr` of the Omron query: the Omron measurement types the data page shows. */
export const OMRON_CATEGORIES = ['bloodpressure', 'weight'] as const;
export type OmronCategory = (typeof OMRON_CATEGORIES)[number];
export const OMRON_CATEGORY_LABELS: Record<OmronCategory, string> = {
  bloodpressure: 'Blood Pressure',
  weight: 'Weight',
};

/** Results limit choices (§9); 0 means All. */
export const OMRON_RESULT_LIMITS = [0, 240, 120, 30, 10] as const;
export type OmronResultLimit = (typeof OMRON_RESULT_LIMITS)[number];
/** Omron default start: 7 days back (§9). */
export const OMRON_DEFAULT_START_DAYS = 7;
export const OMRON_SORT_ORDERS = ['asc', 'desc'] as const;

export const OMRON_MESSAGES = {
  category: 'Please select a Category',
  since: 'Please select a Start Date',
  limit: 'Please select an option from the Results Limit',
  sinceInFuture: 'Start date cannot be in the future.',
} as const;

/** Units shown on the Omron page (§9). */
export const OMRON_UNITS = { pressure: 'mmHg', pulse: 'BPM', weight: 'Lbs' } as const;

/** kg → lbs as the spec converts weight (§9: × 2.20462, one decimal). */
export function kgToLbs(kg: number): number {
  return Math.round(kg * 2.20462 * 10) / 10;
}

/**
 * The Omron query body. `since` is a local date (`yyyy-MM-dd`); the server also refuses a
 * date after today (in the earliest time zone, so no user's today is refused).
 */
export const omronQuerySchema = z.strictObject({
  queryStr: z.enum(OMRON_CATEGORIES, { error: OMRON_MESSAGES.category }),
  since: z.string({ error: OMRON_MESSAGES.since }).refine(isCalendarDate, OMRON_MESSAGES.since),
  sortOrder: z.enum(OMRON_SORT_ORDERS).default('desc'),
  limit: z.coerce
    .number({ error: OMRON_MESSAGES.limit })
    .refine(
      (value) => (OMRON_RESULT_LIMITS as readonly number[]).includes(value),
      OMRON_MESSAGES.limit,
    ),
});
export type OmronQuery = z.input<typeof omronQuerySchema>;

export const omronBloodPressureSchema = z.object({
  /** UTC instant, `…Z`. */
  dateTime: z.string(),
  /** The participant's clock, `yyyy-MM-ddTHH:mm:ss`. */
  dateTimeLocal: z.string(),
  dateTimeUtcOffset: z.string(),
  systolic: z.number(),
  diastolic: z.number(),
  pulse: z.number().nullable(),
  deviceType: z.string().nullable(),
});
export type OmronBloodPressureReading = z.infer<typeof omronBloodPressureSchema>;

export const omronWeightSchema = z.object({
  dateTime: z.string(),
  dateTimeLocal: z.string(),
  dateTimeUtcOffset: z.string(),
  /** Kilograms, as Omron sends it; the page shows pounds (`kgToLbs`). */
  weight: z.number(),
  deviceType: z.string().nullable(),
});
export type OmronWeightReading = z.infer<typeof omronWeightSchema>;

/** Where an answer came from: stored readings (sync covered the range) or the provider. */
export const DATA_SOURCES = ['stored', 'live'] as const;
export const dataSourceSchema = z.enum(DATA_SOURCES);

export const omronDataResponseSchema = z.object({
  source: dataSourceSchema,
  bloodPressure: z.array(omronBloodPressureSchema).optional(),
  weight: z.array(omronWeightSchema).optional(),
});
export type OmronDataResponse = z.infer<typeof omronDataResponseSchema>;

// --- Dexcom ------------------------------------------------------------------------------

export const DEXCOM_RECORD_TYPES = ['egvs', 'events', 'calibrations', 'devices'] as const;
export type DexcomRecordType = (typeof DEXCOM_RECORD_TYPES)[number];
/** The longest range one Dexcom data call answers (decision 0055). */
export const DEXCOM_QUERY_MAX_DAYS = 90;
/** CGM summary default period (days). */
export const CGM_DEFAULT_PERIOD_DAYS = 14;
export const CGM_PERIODS = [7, 14, 30, 90] as const;

export const DEXCOM_MESSAGES = {
  query:
    'The Dexcom query must be startDate=…&endDate=… (and optionally records=egvs,events,calibrations,devices).',
  startDate: 'startDate must be a date (YYYY-MM-DD) or a UTC time (YYYY-MM-DDThh:mm:ss).',
  endDate: 'endDate must be a date (YYYY-MM-DD) or a UTC time (YYYY-MM-DDThh:mm:ss).',
  order: 'endDate must be after startDate.',
  tooLong: `The range can not be longer than ${DEXCOM_QUERY_MAX_DAYS} days.`,
  records: 'records must name egvs, events, calibrations or devices.',
} as const;

export type DexcomQuery = { start: Date; end: Date; records: DexcomRecordType[] };

const dexcomTime = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2})?)?$/;

function parseDexcomTime(text: string, endOfDay: boolean): Date | null {
  if (!dexcomTime.test(text) || !isCalendarDateTime(text, { offset: 'none' })) return null;
  const withTime =
    text.length === 10 ? `${text}T00:00:00` : text.length === 16 ? `${text}:00` : text;
  const at = Date.parse(`${withTime}Z`);
  if (Number.isNaN(at)) return null;
  // A bare end date includes that whole day.
  return new Date(text.length === 10 && endOfDay ? at + 86_400_000 : at);
}

/**
 * The `{query}` of `GET /getDexcomParticipantData/{id}/{query}` (decision 0055): a
 * URL-encoded query string in one path segment,
 * `startDate=YYYY-MM-DD[Thh:mm:ss]&endDate=YYYY-MM-DD[Thh:mm:ss][&records=egvs,events,…]`.
 * Times are UTC (as Dexcom's own `startDate`/`endDate`); the start is inclusive, the end
 * exclusive, and a bare end date includes that day. At most 90 days. Without `records`
 * every kind is answered.
 */
export function parseDexcomQuery(
  text: string,
): { ok: true; query: DexcomQuery } | { ok: false; message: string } {
  const params = new URLSearchParams(text.replace(/^\?/, ''));
  const startText = params.get('startDate');
  const endText = params.get('endDate');
  for (const key of params.keys()) {
    if (!['startDate', 'endDate', 'records'].includes(key))
      return { ok: false, message: DEXCOM_MESSAGES.query };
  }
  if (startText === null || endText === null) return { ok: false, message: DEXCOM_MESSAGES.query };
  const start = parseDexcomTime(startText, false);
  if (!start) return { ok: false, message: DEXCOM_MESSAGES.startDate };
  const end = parseDexcomTime(endText, true);
  if (!end) return { ok: false, message: DEXCOM_MESSAGES.endDate };
  if (end <= start) return { ok: false, message: DEXCOM_MESSAGES.order };
  if (end.getTime() - start.getTime() > DEXCOM_QUERY_MAX_DAYS * 86_400_000)
    return { ok: false, message: DEXCOM_MESSAGES.tooLong };
  const recordsText = params.get('records');
  let records: DexcomRecordType[] = [...DEXCOM_RECORD_TYPES];
  if (recordsText !== null) {
    const names = recordsText.split(',').map((name) => name.trim());
    if (
      names.length === 0 ||
      names.some((name) => !(DEXCOM_RECORD_TYPES as readonly string[]).includes(name))
    ) {
      return { ok: false, message: DEXCOM_MESSAGES.records };
    }
    records = DEXCOM_RECORD_TYPES.filter((type) => names.includes(type));
  }
  return { ok: true, query: { start, end, records } };
}

/** The `{query}` segment for a range (what the web sends). */
export function dexcomQueryString(range: {
  start: Date;
  end: Date;
  records?: readonly DexcomRecordType[];
}): string {
  const utc = (at: Date) => at.toISOString().slice(0, 19);
  const params = new URLSearchParams({ startDate: utc(range.start), endDate: utc(range.end) });
  if (range.records) params.set('records', range.records.join(','));
  return params.toString();
}

export const dexcomEgvSchema = z.object({
  /** UTC instant, `…Z`. */
  systemTime: z.string(),
  /** The participant's clock with its offset, or null when the device sent none (receivers). */
  utcOffset: z.string().nullable(),
  value: z.number().nullable(),
  status: z.string().nullable(),
  trend: z.string().nullable(),
  trendRate: z.number().nullable(),
});
export type DexcomEgvReading = z.infer<typeof dexcomEgvSchema>;

export const dexcomEventSchema = z.object({
  systemTime: z.string(),
  utcOffset: z.string().nullable(),
  eventType: z.string(),
  eventSubType: z.string().nullable(),
  value: z.string().nullable(),
  unit: z.string().nullable(),
});
export type DexcomEventReading = z.infer<typeof dexcomEventSchema>;

export const dexcomCalibrationSchema = z.object({
  systemTime: z.string(),
  utcOffset: z.string().nullable(),
  value: z.number(),
});

export const dexcomDeviceInfoSchema = z.object({
  transmitterGeneration: z.string().nullable(),
  displayDevice: z.string().nullable(),
  /** Latest EGV of this device in the range (UTC). */
  lastReading: z.string(),
});

export const dexcomDataResponseSchema = z.object({
  source: dataSourceSchema,
  startDate: z.string(),
  endDate: z.string(),
  unit: z.literal('mg/dL'),
  egvs: z.array(dexcomEgvSchema).optional(),
  events: z.array(dexcomEventSchema).optional(),
  calibrations: z.array(dexcomCalibrationSchema).optional(),
  devices: z.array(dexcomDeviceInfoSchema).optional(),
});
export type DexcomDataResponse = z.infer<typeof dexcomDataResponseSchema>;

// --- Stored readings (/ParticipantDataPage, raw pages) ----------------------------------

export const storedReadingSchema = z.object({
  metricKey: z.string(),
  recordedAt: z.string(),
  endAt: z.string().nullable(),
  utcOffsetMinutes: z.number().nullable(),
  value: z.number().nullable(),
  valueJson: z.unknown().nullable(),
  brand: z.enum(DEVICE_BRANDS),
  upstream: z.string(),
  dataSource: z.string().nullable(),
  syncRunId: z.number().nullable(),
  syncedAt: z.string(),
});
export type StoredReadingRow = z.infer<typeof storedReadingSchema>;

export const STORED_READING_SORT_COLUMNS = ['recordedAt', 'metricKey', 'value'] as const;

/** Brand path segment of the stored-readings list: `/participantReadings/{id}/{brand}`. */
export const readingsBrandPathSchema = z
  .enum(['fitbit', 'omron', 'dexcom'])
  .transform(
    (brand) =>
      (brand === 'fitbit'
        ? 'Fitbit'
        : brand === 'omron'
          ? 'Omron'
          : 'Dexcom') as (typeof DEVICE_BRANDS)[number],
  );

export const participantOverviewSchema = z.object({
  participantId: z.number(),
  brands: z.array(
    z.object({
      brand: z.enum(DEVICE_BRANDS),
      metrics: z.array(
        z.object({
          metricKey: z.string(),
          rows: z.number(),
          earliest: z.string().nullable(),
          latest: z.string().nullable(),
          latestValue: z.number().nullable(),
        }),
      ),
    }),
  ),
});
export type ParticipantOverview = z.infer<typeof participantOverviewSchema>;
