import {
  DEVICE_MESSAGES,
  fitbitCallbackSchema,
  fitbitClientIdResponseSchema,
  type FitbitCallbackRequest,
} from '@trialpulse/shared';
import type { ProviderPlugin } from '../types';
import {
  createGoogleHealthClient,
  GOOGLE_HEALTH_SCOPES,
  googleHealthEndpoints,
} from './google-health.client';
import { GOOGLE_HEALTH_STREAMS, googleHealthSource } from './google-health.source';

const STREAM_KEYS = new Set(GOOGLE_HEALTH_STREAMS.map((stream) => stream.key));

/**
 * The Google Health API, where Fitbit connections link now. Its webhook deliveries carry the
 * subscriber's secret in `Authorization` and name the data type (decision 0037).
 */
export const googleHealthPlugin: ProviderPlugin = {
  upstream: 'google-health',
  label: 'Google Health API',
  brand: 'Fitbit',
  linksNewConnections: true,
  linking: {
    consentPage: '/PAFitbitConsentPage',
    callbackTexts: {
      denied: DEVICE_MESSAGES.fitbitAuthorizationFailed,
      exchangeFailed: DEVICE_MESSAGES.unableToComplete,
    },
    routes: {
      clientId: {
        path: '/api/fitbitClientId',
        key: 'FITBIT_CLIENT_ID',
        response: fitbitClientIdResponseSchema,
      },
      callback: {
        path: '/api/fitbit-callback',
        summary: 'Completes a Fitbit authorisation',
        body: fitbitCallbackSchema,
        input: (body: FitbitCallbackRequest) => body,
      },
      refreshToken: '/api/fitbitRefreshToken',
      revokeToken: { method: 'GET', path: '/api/revokeAccessToken/:id' },
      isAuth: '/api/fitbitIsParticipantAuth/:id',
      devices: '/api/fitbitDevices/:id',
    },
  },
  scopes: GOOGLE_HEALTH_SCOPES,
  callbackPath: '/fitbit-callback',
  settings: (config, redirectUri) =>
    config.FITBIT_CLIENT_ID
      ? {
          ...googleHealthEndpoints(config.GOOGLE_HEALTH_BASE_URL),
          brand: 'fitbit',
          upstream: 'google-health',
          clientId: config.FITBIT_CLIENT_ID,
          ...(config.FITBIT_CLIENT_SECRET && { clientSecret: config.FITBIT_CLIENT_SECRET }),
          clientAuth: 'body',
          redirectUri,
          scopes: GOOGLE_HEALTH_SCOPES,
        }
      : undefined,
  createClient: (settings, deps) => createGoogleHealthClient(settings, deps),
  sync: googleHealthSource,
  webhook: {
    path: '/webhooks/google-health',
    secret: (config) => config.GOOGLE_HEALTH_WEBHOOK_SECRET,
    credential: (request) => request.headers.authorization,
    expected: (secret) => `Bearer ${secret}`,
    notifications(body) {
      if (body && typeof body === 'object' && (body as { type?: unknown }).type === 'verification')
        return { status: 201, users: [] };
      const users: Array<{ providerUserId: string; stream?: string }> = [];
      for (const item of Array.isArray(body) ? body : [body]) {
        const data = (item as { data?: { healthUserId?: unknown; dataType?: unknown } } | null)
          ?.data;
        if (!data || typeof data.healthUserId !== 'string') continue;
        const dataType =
          typeof data.dataType === 'string' && STREAM_KEYS.has(data.dataType)
            ? data.dataType
            : undefined;
        // A type TrialPulse does not store needs no sync.
        if (typeof data.dataType === 'string' && !dataType) continue;
        users.push({ providerUserId: data.healthUserId, ...(dataType && { stream: dataType }) });
      }
      return { status: 204, users };
    },
  },
};
