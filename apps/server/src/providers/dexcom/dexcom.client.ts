import { z } from 'zod';
import {
  type DeviceProviderClient,
  type OAuthClient,
  type ProviderClientDeps,
  type ProviderConfig,
  type ProviderDevice,
  type ProviderEndpoints,
  createOAuthClient,
  createProviderHttp,
  parseProviderResponse,
} from '../../modules/devices/core/provider-client';
import { ProviderUnavailableError } from '../../modules/devices/core/provider-errors';

/**
 * The Dexcom API v3. OAuth lives under `/v2/oauth2` (client secret in the form body, no
 * PKCE, no revoke endpoint, the refresh token rotated on every refresh); data under
 * `/v3/users/self`. Range queries span at most 30 days, so longer ranges are split.
 */

export const DEXCOM_SCOPES = ['offline_access'];

/** Dexcom's hosts (facts §3.1); the participant's region decides the production one. */
export const DEXCOM_HOSTS = {
  sandbox: 'https://sandbox-api.dexcom.com',
  us: 'https://api.dexcom.com',
  eu: 'https://api.dexcom.eu',
  jp: 'https://api.dexcom.jp',
} as const;

/** Every Dexcom host (and the simulator) uses the same paths. */
export function dexcomEndpoints(baseUrl: string = DEXCOM_HOSTS.us): ProviderEndpoints {
  const base = baseUrl.replace(/\/+$/, '');
  return {
    authorizeUrl: `${base}/v2/oauth2/login`,
    tokenUrl: `${base}/v2/oauth2/token`,
    apiBaseUrl: `${base}/v3/users/self`,
  };
}

/** The longest `startDate`–`endDate` window one range query may span. */
export const DEXCOM_MAX_WINDOW_DAYS = 30;

const egvSchema = z.object({
  recordId: z.string(),
  /** UTC without an offset, `YYYY-MM-DDThh:mm:ss`. */
  systemTime: z.string(),
  /** The device's clock; with an offset from the phone apps, without from receivers. */
  displayTime: z.string(),
  value: z.number().nullable(),
  status: z.string().nullable().optional(),
  trend: z.string().nullable().optional(),
  trendRate: z.number().nullable().optional(),
  unit: z.string().optional(),
  rateUnit: z.string().optional(),
  transmitterGeneration: z.string().nullable().optional(),
  displayDevice: z.string().nullable().optional(),
});

export type DexcomEgv = z.infer<typeof egvSchema>;

const recordBase = {
  recordId: z.string(),
  systemTime: z.string(),
  displayTime: z.string(),
  transmitterId: z.string().nullable().optional(),
  transmitterGeneration: z.string().nullable().optional(),
  displayDevice: z.string().nullable().optional(),
};

const eventSchema = z.object({
  ...recordBase,
  eventStatus: z.string().nullable().optional(),
  eventType: z.string(),
  eventSubType: z.string().nullable().optional(),
  unit: z.string().nullable().optional(),
  /** A string in the API (`"12"`, `"light"`), or null. */
  value: z.string().nullable().optional(),
});

const calibrationSchema = z.object({
  ...recordBase,
  unit: z.string().nullable().optional(),
  value: z.number().nullable(),
});

export type DexcomEvent = z.infer<typeof eventSchema>;
export type DexcomCalibration = z.infer<typeof calibrationSchema>;

/** No revoke: Dexcom has no revoke endpoint; dropping the tokens is all TrialPulse can do. */
export type DexcomClient = OAuthClient &
  DeviceProviderClient & {
    readonly upstream: 'dexcom';
    /**
     * Estimated glucose values with `start` ≤ systemTime < `end`, newest first. Ranges over
     * 30 days become one call per window, newest window first.
     * @throws RangeError when `end` is not after `start`; provider errors as usual.
     */
    getEgvs(accessToken: string, range: { start: Date; end: Date }): Promise<DexcomEgv[]>;
    /** User-entered events in [start, end), newest first, in windows as `getEgvs`. */
    getEvents(accessToken: string, range: { start: Date; end: Date }): Promise<DexcomEvent[]>;
    /** Fingerstick calibrations in [start, end), newest first, in windows as `getEgvs`. */
    getCalibrations(
      accessToken: string,
      range: { start: Date; end: Date },
    ): Promise<DexcomCalibration[]>;
  };

export function createDexcomClient(
  config: ProviderConfig,
  deps: ProviderClientDeps = {},
): DexcomClient {
  if (config.upstream !== 'dexcom') throw new Error('Not a Dexcom configuration.');
  const http = createProviderHttp(config, deps);
  const { revoke: _noRevokeEndpoint, ...oauthClient } = createOAuthClient(http, {
    pkce: false,
    refreshParams: { redirect_uri: config.redirectUri },
  });

  /** One range resource over [start, end), one call per 30-day window, newest first. */
  async function rangeRecords<T>(
    accessToken: string,
    path: string,
    schema: z.ZodType<{ records: T[] }>,
    range: { start: Date; end: Date },
  ): Promise<T[]> {
    const records: T[] = [];
    for (const window of dexcomWindows(range.start, range.end)) {
      const data = await http.requestJson({
        method: 'GET',
        path,
        accessToken,
        query: { startDate: dexcomDate(window.start), endDate: dexcomDate(window.end) },
      });
      records.push(...parseProviderResponse(http, schema, data).records);
    }
    return records;
  }

  return {
    ...oauthClient,
    upstream: 'dexcom',

    getEgvs: (accessToken, range) => rangeRecords(accessToken, '/egvs', egvsSchema, range),
    getEvents: (accessToken, range) => rangeRecords(accessToken, '/events', eventsSchema, range),
    getCalibrations: (accessToken, range) =>
      rangeRecords(accessToken, '/calibrations', calibrationsSchema, range),

    /**
     * One entry per display device (phone app or receiver) with its transmitter generation;
     * `lastSyncTime` is the last upload in UTC. Dexcom reports no battery.
     */
    async listDevices(accessToken) {
      const data = await http.requestJson({ method: 'GET', path: '/devices', accessToken });
      return parseProviderResponse(http, devicesSchema, data).records.map(toDevice);
    },
  };
}

/**
 * Splits [start, end) into windows of at most 30 days, newest first, on whole seconds
 * (the API's resolution): start rounded down and end up, so no record is lost.
 */
export function dexcomWindows(start: Date, end: Date): Array<{ start: Date; end: Date }> {
  const first = Math.floor(start.getTime() / 1000) * 1000;
  let upper = Math.ceil(end.getTime() / 1000) * 1000;
  if (!(upper > first)) throw new RangeError('The end of a Dexcom range must be after its start.');
  const windows: Array<{ start: Date; end: Date }> = [];
  while (upper > first) {
    const lower = Math.max(first, upper - DEXCOM_MAX_WINDOW_DAYS * 86_400_000);
    windows.push({ start: new Date(lower), end: new Date(upper) });
    upper = lower;
  }
  return windows;
}

/** `YYYY-MM-DDThh:mm:ss` in UTC without an offset, as the API compares with systemTime. */
function dexcomDate(date: Date): string {
  return date.toISOString().slice(0, 19);
}

const egvsSchema = z.object({ records: z.array(egvSchema) });
const eventsSchema = z.object({ records: z.array(eventSchema) });
const calibrationsSchema = z.object({ records: z.array(calibrationSchema) });

/** The answer schema of each range resource: the client's calls and the sync's streams parse with these. */
export const DEXCOM_RANGE_SCHEMAS = {
  egvs: egvsSchema,
  events: eventsSchema,
  calibrations: calibrationsSchema,
} as const;
export type DexcomRangeResource = keyof typeof DEXCOM_RANGE_SCHEMAS;

/**
 * A range resource's answer as the client reads it (the sync's requests bypass the client's
 * HTTP, so they parse here).
 * @throws ProviderUnavailableError 'invalid_response' when the answer is not the documented shape.
 */
export function parseDexcomRange<R extends DexcomRangeResource>(
  resource: R,
  data: unknown,
): z.infer<(typeof DEXCOM_RANGE_SCHEMAS)[R]>['records'] {
  const parsed = DEXCOM_RANGE_SCHEMAS[resource].safeParse(data);
  if (parsed.success)
    return parsed.data.records as z.infer<(typeof DEXCOM_RANGE_SCHEMAS)[R]>['records'];
  const paths = parsed.error.issues.map((issue) => issue.path.join('.') || '(root)');
  throw new ProviderUnavailableError(
    `Dexcom sent an unexpected answer (${[...new Set(paths)].slice(0, 5).join(', ')}).`,
    { upstream: 'dexcom' },
    'invalid_response',
  );
}

const deviceSchema = z.object({
  lastUploadDate: z.string().nullable().optional(),
  transmitterId: z.string().nullable().optional(),
  transmitterGeneration: z.string().nullable().optional(),
  displayDevice: z.string().nullable().optional(),
});

const devicesSchema = z.object({ records: z.array(deviceSchema) });

const GENERATIONS: Record<string, string> = {
  g4: 'G4',
  g5: 'G5',
  g6: 'G6',
  'g6+': 'G6+',
  g7: 'G7',
  g715day: 'G7 15 Day',
  dexcomPro: 'Dexcom Pro',
};

function toDevice(device: z.infer<typeof deviceSchema>): ProviderDevice {
  const generation = device.transmitterGeneration ?? 'unknown';
  const display = device.displayDevice ? ` (${device.displayDevice})` : '';
  return {
    id: device.transmitterId ?? null,
    deviceVersion: `Dexcom ${GENERATIONS[generation] ?? generation}${display}`,
    type: 'CGM',
    battery: null,
    batteryLevel: null,
    // UTC without an offset in the API; the Z makes it unambiguous.
    lastSyncTime: device.lastUploadDate ? `${device.lastUploadDate.replace(/Z$/, '')}Z` : null,
  };
}
