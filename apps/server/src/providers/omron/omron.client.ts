import * as oauth from 'oauth4webapi';
import { z } from 'zod';
import {
  type DeviceKind,
  type DeviceProviderClient,
  type ProviderClientDeps,
  type ProviderConfig,
  type ProviderDevice,
  type ProviderEndpoints,
  type RevocableOAuthClient,
  createOAuthClient,
  createProviderHttp,
  parseProviderResponse,
} from '../../modules/devices/core/provider-client';
import { ProviderRequestError } from '../../modules/devices/core/provider-errors';

/**
 * The Omron Partner API: IdentityServer-style OAuth / OpenID Connect (client secret in the
 * form body, PKCE honoured, ID token `sub` = Omron user id, refresh tokens rotated on every
 * refresh) and the single data call, `POST /api/measurement`. It is a POST but only reads;
 * the wrapper still sends it once, as it does every POST.
 */

/** `offline_access` brings the refresh token, `openid` the user id. */
export const OMRON_SCOPES = ['bloodpressure', 'weight', 'openid', 'offline_access'];

export const OMRON_MEASUREMENT_TYPES = ['bloodpressure', 'weight', 'activity'] as const;
export type OmronMeasurementType = (typeof OMRON_MEASUREMENT_TYPES)[number];

/** Omron's staging and production hosts (facts §2.1). */
export const OMRON_HOSTED_ENDPOINTS: Record<'staging' | 'production', ProviderEndpoints> = {
  staging: {
    authorizeUrl: 'https://stg-oauth-website.ohiomron.com/connect/authorize',
    tokenUrl: 'https://stg-oauth.ohiomron.com/stg/connect/token',
    revokeUrl: 'https://stg-oauth.ohiomron.com/stg/connect/revocation',
    apiBaseUrl: 'https://stg-oauth.ohiomron.com/stg/api',
  },
  production: {
    authorizeUrl: 'https://prd-oauth-website.ohiomron.com/connect/authorize',
    tokenUrl: 'https://prd-oauth.ohiomron.com/prd/connect/token',
    revokeUrl: 'https://prd-oauth.ohiomron.com/prd/connect/revocation',
    apiBaseUrl: 'https://prd-oauth.ohiomron.com/prd/api',
  },
};

/** Omron production, or one simulator base URL (which is also the ID tokens' issuer). */
export function omronEndpoints(baseUrl?: string): ProviderEndpoints {
  if (baseUrl === undefined) return OMRON_HOSTED_ENDPOINTS.production;
  const base = baseUrl.replace(/\/+$/, '');
  return {
    authorizeUrl: `${base}/connect/authorize`,
    tokenUrl: `${base}/connect/token`,
    revokeUrl: `${base}/connect/revocation`,
    apiBaseUrl: `${base}/api`,
    issuer: base,
  };
}

export type OmronMeasurementQuery = {
  type: OmronMeasurementType;
  /**
   * First local date, `yyyy-MM-dd`. Omron filters on the measurement's local date, so
   * callers go back one day more than they need (facts §2.2).
   */
  since: string;
  limit?: number;
  sortOrder?: 'asc' | 'desc';
  /** `nextPaginationKey` of the previous page. */
  paginationKey?: string;
};

const recordTimes = {
  id: z.number(),
  /** UTC, `…Z`. */
  dateTime: z.string(),
  dateTimeLocal: z.string(),
  dateTimeUtcOffset: z.string(),
  deviceType: z.string().optional(),
};

const bloodPressureSchema = z.object({
  ...recordTimes,
  systolic: z.number(),
  diastolic: z.number(),
  bloodPressureUnits: z.string().optional(),
  pulse: z.number().optional(),
  pulseUnits: z.string().optional(),
  possibleAfib: z.boolean().optional(),
});

const weightSchema = z.object({
  ...recordTimes,
  weight: z.number(),
  weightUnits: z.string().optional(),
  bodyFatPercentage: z.number().optional(),
  bmi: z.number().optional(),
});

const activitySchema = z.looseObject({ ...recordTimes, steps: z.number().optional() });

export type OmronBloodPressure = z.infer<typeof bloodPressureSchema>;
export type OmronWeight = z.infer<typeof weightSchema>;
export type OmronActivity = z.infer<typeof activitySchema>;

export type OmronMeasurements = {
  /** More records exist: ask again with `nextPaginationKey`. */
  truncated: boolean;
  nextPaginationKey: string | null;
  bloodPressure: OmronBloodPressure[];
  weight: OmronWeight[];
  activity: OmronActivity[];
};

export type OmronClient = RevocableOAuthClient &
  DeviceProviderClient & {
    readonly upstream: 'omron';
    /**
     * `POST /measurement` for one type.
     * @throws ProviderAuthError, ProviderRateLimitedError, ProviderUnavailableError, …
     */
    getMeasurements(accessToken: string, query: OmronMeasurementQuery): Promise<OmronMeasurements>;
  };

/** How far back listDevices looks for measurements; Omron has no device endpoint. */
export const OMRON_DEVICE_LOOKBACK_DAYS = 90;

export function createOmronClient(
  config: ProviderConfig,
  deps: ProviderClientDeps = {},
): OmronClient {
  if (config.upstream !== 'omron') throw new Error('Not an Omron configuration.');
  const http = createProviderHttp(config, deps);
  const oauthClient = createOAuthClient(http, {
    pkce: true,
    refreshParams: { redirect_uri: config.redirectUri },
    providerUserId: (body) => oauth.getValidatedIdTokenClaims(body)?.sub,
  });

  async function measurement(
    accessToken: string,
    form: Record<string, string | undefined>,
  ): Promise<OmronMeasurements> {
    const data = await http.requestJson({
      method: 'POST',
      path: '/measurement',
      accessToken,
      form,
    });
    const answer = parseProviderResponse(http, envelopeSchema, data);
    if (answer.status !== 0 || !answer.result) {
      throw new ProviderRequestError(`Omron API answered status ${answer.status}.`, {
        upstream: 'omron',
        code: `status_${answer.status}`,
      });
    }
    const { result } = answer;
    return {
      truncated: result.truncated ?? false,
      nextPaginationKey: result.nextPaginationKey ?? null,
      bloodPressure: result.bloodPressure ?? [],
      weight: result.weight ?? [],
      activity: result.activity ?? [],
    };
  }

  return {
    ...oauthClient,
    upstream: 'omron',

    async getMeasurements(accessToken, query) {
      if (!/^\d{4}-\d{2}-\d{2}$/.test(query.since)) {
        throw new RangeError(`since must be yyyy-MM-dd, got ${query.since}`);
      }
      return measurement(accessToken, {
        type: query.type,
        since: query.since,
        limit: query.limit === undefined ? undefined : String(query.limit),
        sortOrder: query.sortOrder,
        [`${query.type}PaginationKey`]: query.paginationKey,
      });
    },

    /**
     * Omron has no device list: the devices are the `deviceType`s of the newest measurement
     * of each granted type within the last 90 days, and `lastSyncTime` is that measurement's
     * UTC time (the upload time is not exposed). No battery information exists.
     */
    async listDevices(accessToken) {
      const since = new Date(http.clock.now().getTime() - OMRON_DEVICE_LOOKBACK_DAYS * 86_400_000);
      const result = await measurement(accessToken, {
        since: since.toISOString().slice(0, 10),
        sortOrder: 'desc',
      });
      const devices = new Map<string, ProviderDevice>();
      const add = (kind: DeviceKind, records: Array<{ dateTime: string; deviceType?: string }>) => {
        for (const record of records) {
          const model = record.deviceType ?? 'Unknown device';
          const known = devices.get(`${kind}|${model}`);
          if (known?.lastSyncTime && known.lastSyncTime >= record.dateTime) continue;
          devices.set(`${kind}|${model}`, {
            id: null,
            deviceVersion: model,
            type: kind,
            battery: null,
            batteryLevel: null,
            lastSyncTime: record.dateTime,
          });
        }
      };
      add('BLOOD_PRESSURE_MONITOR', result.bloodPressure);
      add('SCALE', result.weight);
      add('TRACKER', result.activity);
      return [...devices.values()];
    },
  };
}

const envelopeSchema = z.object({
  status: z.number(),
  result: z
    .object({
      truncated: z.boolean().optional(),
      nextPaginationKey: z.string().nullable().optional(),
      bloodPressure: z.array(bloodPressureSchema).optional(),
      weight: z.array(weightSchema).optional(),
      activity: z.array(activitySchema).optional(),
    })
    .optional(),
});
