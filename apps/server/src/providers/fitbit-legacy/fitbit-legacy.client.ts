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
 * The legacy Fitbit Web API, kept for connections made before Google's shutdown. After the
 * shutdown every call (token and revoke included) answers 410 Gone, which surfaces as
 * ProviderGoneError: the connection needs re-consent through the Google Health API.
 *
 * OAuth: a confidential client authenticates with HTTP Basic, a public one sends only its
 * client_id (and must use PKCE). Refresh tokens are single-use: each refresh returns a new
 * pair, and the old refresh token dies once the new pair is used.
 */

/** The Fitbit scopes TrialPulse reads; `settings` covers devices.json. */
export const FITBIT_LEGACY_SCOPES = [
  'activity',
  'heartrate',
  'sleep',
  'weight',
  'nutrition',
  'oxygen_saturation',
  'cardio_fitness',
  'profile',
  'settings',
];

/** Fitbit's hosts, or one simulator base URL that plays both. */
export function fitbitLegacyEndpoints(baseUrl?: string): ProviderEndpoints {
  const api = baseUrl === undefined ? 'https://api.fitbit.com' : baseUrl.replace(/\/+$/, '');
  const web = baseUrl === undefined ? 'https://www.fitbit.com' : api;
  return {
    authorizeUrl: `${web}/oauth2/authorize`,
    tokenUrl: `${api}/oauth2/token`,
    revokeUrl: `${api}/oauth2/revoke`,
    apiBaseUrl: api,
    rateLimitResetHeader: 'fitbit-rate-limit-reset',
  };
}

export type FitbitLegacyProfile = {
  /** The 6-character encoded Fitbit user id. */
  userId: string;
  /** IANA zone; legacy timestamps (lastSyncTime included) are local to it. */
  timeZone: string;
  offsetFromUtcMillis: number;
};

export type FitbitLegacyClient = RevocableOAuthClient &
  DeviceProviderClient & {
    readonly upstream: 'fitbit-legacy';
    /** `profile.json`: the user id and the time zone the API's local times are in. */
    getProfile(accessToken: string): Promise<FitbitLegacyProfile>;
    /** One data call under `/1/user/-/` (or `/1.2/` for sleep); the caller validates the answer. */
    getResource(accessToken: string, path: string): Promise<unknown>;
  };

export function createFitbitLegacyClient(
  config: ProviderConfig,
  deps: ProviderClientDeps = {},
): FitbitLegacyClient {
  if (config.upstream !== 'fitbit-legacy') throw new Error('Not a legacy Fitbit configuration.');
  const http = createProviderHttp(config, deps);
  const oauthClient = createOAuthClient(http, {
    pkce: true,
    providerUserId: (body) => (typeof body.user_id === 'string' ? body.user_id : undefined),
  });

  return {
    ...oauthClient,
    upstream: 'fitbit-legacy',

    async getProfile(accessToken) {
      const data = await http.requestJson({
        method: 'GET',
        path: '/1/user/-/profile.json',
        accessToken,
      });
      const { user } = parseProviderResponse(http, profileSchema, data);
      return {
        userId: user.encodedId,
        timeZone: user.timezone,
        offsetFromUtcMillis: user.offsetFromUTCMillis,
      };
    },

    async getResource(accessToken, path) {
      return http.requestJson({ method: 'GET', path, accessToken });
    },

    /**
     * `devices.json`. `lastSyncTime` stays as Fitbit gives it: the user's local time without
     * an offset (getProfile has the zone), exactly what the spec's device list showed.
     * @throws ProviderGoneError after the shutdown, ProviderAuthError, and the rest.
     */
    async listDevices(accessToken) {
      const data = await http.requestJson({
        method: 'GET',
        path: '/1/user/-/devices.json',
        accessToken,
      });
      return parseProviderResponse(http, devicesSchema, data).map(toDevice);
    },
  };
}

const profileSchema = z.object({
  user: z.object({
    encodedId: z.string().min(1),
    timezone: z.string(),
    offsetFromUTCMillis: z.number(),
  }),
});

const deviceSchema = z.object({
  id: z.union([z.string(), z.number()]).optional(),
  deviceVersion: z.string().optional(),
  type: z.string(),
  battery: z.string().optional(),
  batteryLevel: z.number().int().min(0).max(100).optional(),
  lastSyncTime: z.string().optional(),
});

/** A top-level array (facts §1.14). */
const devicesSchema = z.array(deviceSchema);

function toDevice(device: z.infer<typeof deviceSchema>): ProviderDevice {
  return {
    id: device.id === undefined ? null : String(device.id),
    deviceVersion: device.deviceVersion ?? 'Unknown device',
    type: device.type === 'SCALE' ? 'SCALE' : 'TRACKER',
    battery: batteryStatusOf(device.battery),
    batteryLevel: device.batteryLevel ?? null,
    lastSyncTime: device.lastSyncTime ?? null,
  };
}
