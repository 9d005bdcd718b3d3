import { z } from 'zod';
import {
  type DeviceProviderClient,
  type ProviderClientDeps,
  type ProviderConfig,
  type ProviderDevice,
  type ProviderEndpoints,
  type RevocableOAuthClient,
  batteryStatusOf,
  createOAuthClient,
  createProviderHttp,
  parseProviderResponse,
} from '../../modules/devices/core/provider-client';

/**
 * The Google Health API: the Fitbit brand's default upstream since the legacy Fitbit Web API
 * was shut down. Google OAuth (PKCE, offline access, non-rotating refresh tokens) and the
 * `/v4/users/me` calls TrialPulse needs: identity and paired devices.
 */

export const GOOGLE_HEALTH_SCOPE_PREFIX = 'https://www.googleapis.com/auth/googlehealth';

/** Read-only scopes for the data TrialPulse collects; `settings` covers pairedDevices. */
export const GOOGLE_HEALTH_SCOPES = [
  'activity_and_fitness',
  'health_metrics_and_measurements',
  'sleep',
  'nutrition',
  'profile',
  'settings',
].map((family) => `${GOOGLE_HEALTH_SCOPE_PREFIX}.${family}.readonly`);

/** Google's hosts, or one simulator base URL that plays all three. */
export function googleHealthEndpoints(baseUrl?: string): ProviderEndpoints {
  if (baseUrl === undefined) {
    return {
      authorizeUrl: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenUrl: 'https://oauth2.googleapis.com/token',
      revokeUrl: 'https://oauth2.googleapis.com/revoke',
      apiBaseUrl: 'https://health.googleapis.com/v4',
    };
  }
  const base = baseUrl.replace(/\/+$/, '');
  return {
    authorizeUrl: `${base}/o/oauth2/v2/auth`,
    tokenUrl: `${base}/token`,
    revokeUrl: `${base}/revoke`,
    apiBaseUrl: `${base}/v4`,
  };
}

export type GoogleHealthIdentity = {
  healthUserId: string;
  /** The legacy Fitbit user id, for mapping a legacy connection to its successor only. */
  legacyUserId: string | null;
};

export type GoogleHealthClient = RevocableOAuthClient &
  DeviceProviderClient & {
    readonly upstream: 'google-health';
    /**
     * `users/me/identity`: the participant's Google Health user id.
     * @throws ProviderPermissionError when the Google account has no Google Health profile.
     */
    getIdentity(accessToken: string): Promise<GoogleHealthIdentity>;
    /**
     * `dataPoints:dailyRollUp` of one data type over local civil days [start, end) (dates
     * yyyy-MM-dd), every page; windows without wear are left out by Google.
     */
    dailyRollUp(
      accessToken: string,
      dataType: string,
      start: string,
      end: string,
    ): Promise<DailyRollupPoint[]>;
    /**
     * `dataPoints` list of one data type with an AIP-160 filter, every page (at most
     * `maxPages`); the points as Google sends them, for the caller to translate.
     */
    listDataPoints(
      accessToken: string,
      dataType: string,
      filter: string,
      options?: { pageSize?: number; maxPages?: number },
    ): Promise<Record<string, unknown>[]>;
  };

/** One local day of a dailyRollUp: the civil start date and the data type's aggregate. */
export type DailyRollupPoint = { date: string; values: Record<string, unknown> };

export function createGoogleHealthClient(
  config: ProviderConfig,
  deps: ProviderClientDeps = {},
): GoogleHealthClient {
  if (config.upstream !== 'google-health') throw new Error('Not a Google Health configuration.');
  const http = createProviderHttp(config, deps);
  const oauthClient = createOAuthClient(http, {
    pkce: true,
    // A refresh token comes only with offline access, and on re-consent only with
    // prompt=consent (facts §2.2), which re-linking a participant always is.
    authorizeParams: { access_type: 'offline', prompt: 'consent' },
  });

  return {
    ...oauthClient,
    upstream: 'google-health',

    async getIdentity(accessToken) {
      const data = await http.requestJson({
        method: 'GET',
        path: '/users/me/identity',
        accessToken,
      });
      const identity = parseProviderResponse(http, identitySchema, data);
      return { healthUserId: identity.healthUserId, legacyUserId: identity.legacyUserId ?? null };
    },

    async dailyRollUp(accessToken, dataType, start, end) {
      const points: DailyRollupPoint[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < MAX_ROLLUP_PAGES; page++) {
        const data = await http.requestJson({
          method: 'POST',
          path: `/users/me/dataTypes/${encodeURIComponent(dataType)}/dataPoints:dailyRollUp`,
          accessToken,
          json: {
            range: { start: civilDate(start), end: civilDate(end) },
            windowSizeDays: 1,
            pageToken,
          },
        });
        const parsed = parseProviderResponse(http, dailyRollupSchema, data);
        for (const point of parsed.rollupDataPoints ?? []) {
          const { year, month, day } = point.civilStartTime.date;
          const { civilStartTime: _start, civilEndTime: _end, ...values } = point;
          points.push({
            date: `${year}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`,
            values: (Object.values(values)[0] ?? {}) as Record<string, unknown>,
          });
        }
        pageToken = parsed.nextPageToken;
        if (!pageToken) break;
      }
      return points;
    },

    async listDataPoints(accessToken, dataType, filter, options = {}) {
      const points: Record<string, unknown>[] = [];
      let pageToken: string | undefined;
      for (let page = 0; page < (options.maxPages ?? MAX_LIST_PAGES); page++) {
        const data = await http.requestJson({
          method: 'GET',
          path: `/users/me/dataTypes/${encodeURIComponent(dataType)}/dataPoints`,
          accessToken,
          query: { filter, pageSize: String(options.pageSize ?? 10_000), pageToken },
        });
        const parsed = parseProviderResponse(http, dataPointsSchema, data);
        points.push(...(parsed.dataPoints ?? []));
        // A missing and an empty token both end the list (facts §3).
        pageToken = parsed.nextPageToken || undefined;
        if (!pageToken) break;
      }
      return points;
    },

    /**
     * The paired trackers and scales. `lastSyncTime` is RFC 3339 in UTC.
     * @throws ProviderAuthError, ProviderPermissionError (no `settings` scope), and the rest.
     */
    async listDevices(accessToken) {
      const devices: ProviderDevice[] = [];
      let pageToken: string | undefined;
      // A participant has a handful of devices; the bound only guards against a token loop.
      for (let page = 0; page < MAX_PAGES; page++) {
        const data = await http.requestJson({
          method: 'GET',
          path: '/users/me/pairedDevices',
          accessToken,
          query: { pageSize: '100', pageToken },
        });
        const parsed = parseProviderResponse(http, pairedDevicesSchema, data);
        devices.push(...(parsed.pairedDevices ?? []).map(toDevice));
        pageToken = parsed.nextPageToken;
        if (!pageToken) break;
      }
      return devices;
    },
  };
}

const MAX_PAGES = 10;
/** A day of heart-rate samples is two or three pages of 10,000; the bound guards against a token loop. */
const MAX_LIST_PAGES = 200;
/** 90 daily windows fit one page (default 1440); the bound only guards against a token loop. */
const MAX_ROLLUP_PAGES = 20;

/** A Google `Date` without leading zeros (facts §6). */
function civilDate(date: string) {
  const [year, month, day] = date.split('-').map(Number);
  return { date: { year, month, day } };
}

const civilDateTimeSchema = z.object({
  date: z.object({ year: z.number().int(), month: z.number().int(), day: z.number().int() }),
});

const dailyRollupSchema = z.object({
  rollupDataPoints: z
    .array(
      z
        .object({
          civilStartTime: civilDateTimeSchema,
          civilEndTime: civilDateTimeSchema.optional(),
        })
        .passthrough(),
    )
    .optional(),
  nextPageToken: z.string().optional(),
});

const dataPointsSchema = z.object({
  dataPoints: z.array(z.record(z.string(), z.unknown())).optional(),
  nextPageToken: z.string().optional(),
});

const identitySchema = z.object({
  healthUserId: z.string().min(1),
  legacyUserId: z.string().optional(),
});

const pairedDeviceSchema = z.object({
  name: z.string(),
  deviceType: z.string(),
  deviceVersion: z.string().optional(),
  batteryLevel: z.number().int().min(0).max(100).optional(),
  batteryStatus: z.string().optional(),
  lastSyncTime: z.string().optional(),
});

const pairedDevicesSchema = z.object({
  pairedDevices: z.array(pairedDeviceSchema).optional(),
  nextPageToken: z.string().optional(),
});

function toDevice(device: z.infer<typeof pairedDeviceSchema>): ProviderDevice {
  return {
    // The id is the last segment of `users/{u}/pairedDevices/{id}` (facts §9).
    id: device.name.split('/').pop() || null,
    deviceVersion: device.deviceVersion ?? 'Unknown device',
    // Fitbit pairs trackers (watches included) and scales only.
    type: device.deviceType === 'SCALE' ? 'SCALE' : 'TRACKER',
    battery: batteryStatusOf(device.batteryStatus),
    batteryLevel: device.batteryLevel ?? null,
    lastSyncTime: device.lastSyncTime ?? null,
  };
}
